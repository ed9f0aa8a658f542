import { errors } from '../../errors/catalog.js';
import { geminiSchema } from './schema.js';

type Json = Record<string, unknown>;
type Part = Json;
interface Content { role: 'user' | 'model'; parts: Part[] }

// Tables of names a client sends are Maps, not an object's members: "constructor" would find Object.prototype's.
/** OpenAI's reasoning_effort → Gemini's thinking budget in tokens (Google's own OpenAI-compatible mapping). */
const THINKING_BUDGET = new Map(Object.entries({ none: 0, minimal: 0, low: 1024, medium: 8192, high: 24576 }));
/** input_audio's format → its MIME type. */
const AUDIO_TYPES = new Map(Object.entries({ wav: 'audio/wav', mp3: 'audio/mp3', flac: 'audio/flac', ogg: 'audio/ogg', aac: 'audio/aac' }));

/** Files Gemini fetches itself: its Files API and YouTube; any other URL it refuses. */
const FETCHABLE = /^https:\/\/(generativelanguage\.googleapis\.com\/|(www\.)?youtube\.com\/|youtu\.be\/)/;

/**
 * An OpenAI chat-completions body as a Gemini `GenerateContentRequest`. Throws a 400 for what
 * Gemini cannot be asked in this form, naming the field, so the client is told rather than the
 * request failing upstream.
 */
export function generateContentRequest(payload: Json): Json {
  const messages = payload.messages as Json[];
  const system: Part[] = [];
  const contents: Content[] = [];
  const toolNames = new Map<string, string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    switch (m.role) {
      case 'system':
      case 'developer':
        for (const t of textsOf(m.content, i)) system.push({ text: t });
        break;
      case 'user':
        push(contents, 'user', userParts(m.content, i));
        break;
      case 'assistant':
        push(contents, 'model', assistantParts(m, i, toolNames));
        break;
      case 'tool':
      case 'function':
        push(contents, 'user', [functionResponse(m, i, toolNames)]);
        break;
      default:
        throw errors.badRequest(`Invalid 'messages[${i}].role': '${String(m.role)}' is not a role Gemini can be sent`);
    }
  }
  if (contents.length === 0) throw errors.badRequest("Invalid 'messages': Gemini needs at least one user or assistant message besides the system prompt");
  const body: Json = { contents };
  if (system.length > 0) body.systemInstruction = { parts: system };
  const tools = functionDeclarations(payload.tools);
  if (tools !== null) body.tools = [{ functionDeclarations: tools }];
  const toolConfig = functionCallingConfig(payload.tool_choice);
  if (toolConfig !== null) body.toolConfig = toolConfig;
  const config = generationConfig(payload);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

/** Gemini refuses two turns of the same role in a row only in spirit; joining them keeps function responses in one turn, as it requires. */
function push(contents: Content[], role: Content['role'], parts: Part[]): void {
  if (parts.length === 0) return;
  const last = contents[contents.length - 1];
  if (last !== undefined && last.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

function textsOf(content: unknown, i: number): string[] {
  if (typeof content === 'string') return content === '' ? [] : [content];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw errors.badRequest(`Invalid 'messages[${i}].content': expected a string or an array of content parts`);
  return content.map((p: Json, j) => {
    if (p?.type !== 'text' || typeof p.text !== 'string') throw errors.badRequest(`Invalid 'messages[${i}].content[${j}]': only text parts are allowed here`);
    return p.text;
  });
}

function userParts(content: unknown, i: number): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) throw errors.badRequest(`Invalid 'messages[${i}].content': expected a string or an array of content parts`);
  return content.map((p: Json, j) => contentPart(p, `messages[${i}].content[${j}]`));
}

function contentPart(p: Json, where: string): Part {
  switch (p?.type) {
    case 'text':
      if (typeof p.text !== 'string') throw errors.badRequest(`Invalid '${where}.text': expected a string`);
      return { text: p.text };
    case 'image_url': {
      const img = p.image_url as Json | string | undefined;
      const url = typeof img === 'string' ? img : img?.url;
      if (typeof url !== 'string') throw errors.badRequest(`Invalid '${where}.image_url.url': expected a string`);
      return filePart(url, where, 'image_url.url');
    }
    case 'input_audio': {
      const a = p.input_audio as Json | undefined;
      const type = AUDIO_TYPES.get(String(a?.format));
      if (typeof a?.data !== 'string' || type === undefined) {
        throw errors.badRequest(`Invalid '${where}.input_audio': expected base64 'data' and a 'format' of ${[...AUDIO_TYPES.keys()].join(', ')}`);
      }
      return { inlineData: { mimeType: type, data: a.data } };
    }
    case 'file': {
      const f = p.file as Json | undefined;
      if (typeof f?.file_data !== 'string') {
        throw errors.badRequest(`Invalid '${where}.file': Gemini takes a file as 'file_data' (a data: URL); uploaded OpenAI file ids mean nothing to it`);
      }
      return filePart(f.file_data, where, 'file.file_data');
    }
    default:
      throw errors.badRequest(`Invalid '${where}.type': '${String(p?.type)}' parts cannot be sent to Gemini (text, image_url, input_audio and file can)`);
  }
}

/** A data: URL goes inline; a URL Gemini can fetch itself goes as fileData; any other URL is refused (the gateway fetches nothing for a client). */
function filePart(url: string, where: string, field: string): Part {
  const data = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (data !== null) return { inlineData: { mimeType: data[1], data: data[2] } };
  if (FETCHABLE.test(url)) return { fileData: { fileUri: url } };
  throw errors.badRequest(`Invalid '${where}.${field}': Gemini takes images and files inline as base64 data: URLs `
    + '(or as its own Files API URIs), not from a web URL; fetch the file and send it as data:<type>;base64,…');
}

function assistantParts(m: Json, i: number, toolNames: Map<string, string>): Part[] {
  const parts: Part[] = [];
  if (typeof m.content === 'string') {
    if (m.content !== '') parts.push({ text: m.content });
  } else if (Array.isArray(m.content)) {
    for (const [j, p] of (m.content as Json[]).entries()) {
      if (p?.type === 'text' && typeof p.text === 'string') parts.push({ text: p.text });
      else if (p?.type !== 'refusal') throw errors.badRequest(`Invalid 'messages[${i}].content[${j}]': an assistant message holds text parts only`);
    }
  }
  const calls = m.tool_calls;
  if (calls === undefined || calls === null) return parts;
  if (!Array.isArray(calls)) throw errors.badRequest(`Invalid 'messages[${i}].tool_calls': expected an array`);
  for (const [j, c] of (calls as Json[]).entries()) {
    const fn = c?.function as Json | undefined;
    if (typeof fn?.name !== 'string') throw errors.badRequest(`Invalid 'messages[${i}].tool_calls[${j}].function.name': expected a string`);
    if (typeof c.id === 'string') toolNames.set(c.id, fn.name);
    parts.push({ functionCall: { name: fn.name, args: argumentsOf(fn.arguments, `messages[${i}].tool_calls[${j}].function.arguments`) } });
  }
  return parts;
}

function argumentsOf(text: unknown, where: string): Json {
  if (text === undefined || text === null || text === '') return {};
  let args: unknown;
  try {
    args = typeof text === 'string' ? JSON.parse(text) : text;
  } catch {
    throw errors.badRequest(`Invalid '${where}': not JSON (Gemini takes a tool call's arguments as a JSON object)`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw errors.badRequest(`Invalid '${where}': expected a JSON object`);
  return args as Json;
}

/** A tool result, named by the call it answers (Gemini matches results to calls by function name, not id). */
function functionResponse(m: Json, i: number, toolNames: Map<string, string>): Part {
  const name = m.role === 'function' ? m.name : toolNames.get(String(m.tool_call_id));
  if (typeof name !== 'string') {
    throw errors.badRequest(`Invalid 'messages[${i}].tool_call_id': '${String(m.tool_call_id)}' answers no tool call of an earlier assistant message`);
  }
  const text = typeof m.content === 'string' ? m.content : textsOf(m.content, i).join('');
  return { functionResponse: { name, response: responseObject(text) } };
}

/** Gemini's `response` is a JSON object: a tool's JSON object is sent as it is, anything else under `content`. */
function responseObject(text: string): Json {
  try {
    const v = JSON.parse(text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Json;
  } catch {
    // plain text
  }
  return { content: text };
}

function functionDeclarations(tools: unknown): Json[] | null {
  if (tools === undefined || tools === null) return null;
  if (!Array.isArray(tools)) throw errors.badRequest("Invalid 'tools': expected an array");
  if (tools.length === 0) return null;
  return tools.map((t: Json, i) => {
    const fn = t?.function as Json | undefined;
    if (t?.type !== 'function' || typeof fn?.name !== 'string') {
      throw errors.badRequest(`Invalid 'tools[${i}]': Gemini takes function tools ({type: 'function', function: {name, parameters}}) only`);
    }
    const d: Json = { name: fn.name };
    if (typeof fn.description === 'string') d.description = fn.description;
    const params = fn.parameters as Json | undefined;
    // Gemini refuses an object schema with no properties as parameters; a function without arguments has none.
    if (params !== undefined && params !== null && !(params.type === 'object' && isEmpty(params.properties))) d.parameters = geminiSchema(params);
    return d;
  });
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'object' && Object.keys(v).length === 0);
}

function functionCallingConfig(choice: unknown): Json | null {
  if (choice === undefined || choice === null) return null;
  let config: Json;
  if (choice === 'auto') config = { mode: 'AUTO' };
  else if (choice === 'none') config = { mode: 'NONE' };
  else if (choice === 'required') config = { mode: 'ANY' };
  else {
    const name = ((choice as Json)?.function as Json | undefined)?.name;
    if ((choice as Json)?.type !== 'function' || typeof name !== 'string') {
      throw errors.badRequest("Invalid 'tool_choice': expected auto, none, required or {type: 'function', function: {name}}");
    }
    config = { mode: 'ANY', allowedFunctionNames: [name] };
  }
  return { functionCallingConfig: config };
}

function generationConfig(p: Json): Json {
  const c: Json = {};
  const max = p.max_completion_tokens ?? p.max_tokens;
  if (typeof max === 'number') c.maxOutputTokens = max;
  if (typeof p.temperature === 'number') c.temperature = p.temperature;
  if (typeof p.top_p === 'number') c.topP = p.top_p;
  if (typeof p.n === 'number') c.candidateCount = p.n;
  if (typeof p.presence_penalty === 'number') c.presencePenalty = p.presence_penalty;
  if (typeof p.frequency_penalty === 'number') c.frequencyPenalty = p.frequency_penalty;
  if (typeof p.seed === 'number') c.seed = p.seed;
  if (typeof p.stop === 'string') c.stopSequences = [p.stop];
  else if (Array.isArray(p.stop) && p.stop.length > 0) c.stopSequences = p.stop;
  const format = p.response_format as Json | undefined;
  if (format?.type === 'json_object') c.responseMimeType = 'application/json';
  else if (format?.type === 'json_schema') {
    const schema = (format.json_schema as Json | undefined)?.schema;
    c.responseMimeType = 'application/json';
    if (schema !== undefined && schema !== null) c.responseSchema = geminiSchema(schema);
  } else if (format !== undefined && format !== null && format.type !== 'text') {
    throw errors.badRequest("Invalid 'response_format.type': expected text, json_object or json_schema");
  }
  if (typeof p.reasoning_effort === 'string') {
    const budget = THINKING_BUDGET.get(p.reasoning_effort);
    if (budget === undefined) throw errors.badRequest(`Invalid 'reasoning_effort': expected one of ${[...THINKING_BUDGET.keys()].join(', ')}`);
    c.thinkingConfig = { thinkingBudget: budget };
  }
  return c;
}
