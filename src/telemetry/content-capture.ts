/**
 * The prompt and the answer in the OpenTelemetry GenAI conventions' message shape, for
 * `tracing.captureContent` only: `gen_ai.input.messages`, `gen_ai.system_instructions` and
 * `gen_ai.output.messages`, each a JSON string (OTLP attributes carry no nested objects).
 * Messages are `{role, parts: [{type: 'text', content} | {type: 'tool_call', id, name, arguments}
 * | {type: 'tool_call_response', id, response}], finish_reason?}`. Read from the client's own
 * request and the answer as the client received it, in the route's format (chat completions,
 * Anthropic Messages or Responses); what cannot be read is left out, never guessed.
 */

/** Which inbound format a traced route speaks. */
export type ContentFormat = 'chat' | 'messages' | 'responses';

interface Part {
  type: string;
  [k: string]: unknown;
}
interface Message {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The request's messages (and system instructions), as attributes; none for a body that is not JSON. */
export function inputContent(format: ContentFormat, raw: Buffer): Record<string, string | null> {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return {};
  }
  if (!isObj(body)) return {};
  let system: Part[] = [];
  const messages: Message[] = [];
  if (format === 'chat' && Array.isArray(body.messages)) {
    for (const m of body.messages) {
      if (!isObj(m)) continue;
      const role = str(m.role) ?? 'user';
      const parts = chatParts(m);
      if (role === 'system' || role === 'developer') system = system.concat(parts);
      else messages.push({ role, parts });
    }
  } else if (format === 'messages' && Array.isArray(body.messages)) {
    system = typeof body.system === 'string' ? [text(body.system)] : blockParts(body.system);
    for (const m of body.messages) if (isObj(m)) messages.push({ role: str(m.role) ?? 'user', parts: blockParts(m.content) });
  } else if (format === 'responses') {
    if (typeof body.instructions === 'string') system = [text(body.instructions)];
    if (typeof body.input === 'string') messages.push({ role: 'user', parts: [text(body.input)] });
    else if (Array.isArray(body.input)) {
      for (const item of body.input) {
        if (!isObj(item)) continue;
        if (item.type === 'function_call_output') messages.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: item.call_id, response: item.output }] });
        else if (item.type === 'function_call') messages.push({ role: 'assistant', parts: [{ type: 'tool_call', id: item.call_id, name: item.name, arguments: item.arguments }] });
        else if (item.role !== undefined) messages.push({ role: str(item.role) ?? 'user', parts: blockParts(item.content) });
      }
    }
  }
  return {
    'gen_ai.input.messages': messages.length === 0 ? null : JSON.stringify(messages),
    'gen_ai.system_instructions': system.length === 0 ? null : JSON.stringify(system),
  };
}

/** The answer's messages as the client received it: a whole JSON answer or an SSE stream. */
export function outputContent(format: ContentFormat, contentType: string, bytes: Buffer): Record<string, string | null> {
  const messages = contentType.startsWith('text/event-stream') ? streamed(format, bytes.toString('utf8')) : whole(format, bytes);
  return { 'gen_ai.output.messages': messages.length === 0 ? null : JSON.stringify(messages) };
}

function whole(format: ContentFormat, bytes: Buffer): Message[] {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return [];
  }
  if (!isObj(body)) return [];
  if (format === 'chat') {
    const out: Message[] = [];
    if (Array.isArray(body.choices)) {
      for (const c of body.choices) {
        if (!isObj(c) || !isObj(c.message)) continue;
        out.push(withFinish({ role: 'assistant', parts: chatParts(c.message) }, c.finish_reason));
      }
    }
    return out;
  }
  if (format === 'messages') return body.type === 'message' ? [withFinish({ role: 'assistant', parts: blockParts(body.content) }, body.stop_reason)] : [];
  return responsesOutput(body);
}

/** A stream's text deltas joined into one message per choice (tool-call deltas are left out). */
function streamed(format: ContentFormat, sse: string): Message[] {
  const texts: string[] = [];
  let finish: unknown;
  let completed: Message[] | null = null;
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data:')) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line.slice(5));
    } catch {
      continue; // [DONE]
    }
    if (!isObj(ev)) continue;
    if (format === 'chat' && Array.isArray(ev.choices)) {
      for (const c of ev.choices) {
        if (!isObj(c)) continue;
        const i = typeof c.index === 'number' ? c.index : 0;
        const delta = isObj(c.delta) ? str(c.delta.content) : null;
        if (delta !== null) texts[i] = (texts[i] ?? '') + delta;
        if (c.finish_reason != null) finish = c.finish_reason;
      }
    } else if (format === 'messages') {
      if (ev.type === 'content_block_delta' && isObj(ev.delta) && typeof ev.delta.text === 'string') texts[0] = (texts[0] ?? '') + ev.delta.text;
      else if (ev.type === 'message_delta' && isObj(ev.delta) && ev.delta.stop_reason != null) finish = ev.delta.stop_reason;
    } else if (format === 'responses') {
      if (ev.type === 'response.output_text.delta' && typeof ev.delta === 'string') texts[0] = (texts[0] ?? '') + ev.delta;
      else if (ev.type === 'response.completed' && isObj(ev.response)) completed = responsesOutput(ev.response);
    }
  }
  if (completed !== null) return completed;
  const out: Message[] = [];
  for (const t of texts) if (t !== undefined) out.push(withFinish({ role: 'assistant', parts: [text(t)] }, finish));
  return out;
}

function responsesOutput(body: Obj): Message[] {
  const parts: Part[] = [];
  if (Array.isArray(body.output)) {
    for (const item of body.output) {
      if (!isObj(item)) continue;
      if (item.type === 'message') parts.push(...blockParts(item.content));
      else if (item.type === 'function_call') parts.push({ type: 'tool_call', id: item.call_id, name: item.name, arguments: item.arguments });
    }
  }
  return parts.length === 0 ? [] : [{ role: 'assistant', parts }];
}

const text = (content: string): Part => ({ type: 'text', content });

function withFinish(m: Message, reason: unknown): Message {
  if (typeof reason === 'string') m.finish_reason = reason;
  return m;
}

/** An OpenAI chat message's content (a string or parts) and tool calls. */
function chatParts(m: Obj): Part[] {
  const parts: Part[] = typeof m.content === 'string' ? [text(m.content)] : blockParts(m.content);
  if (Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls) {
      if (isObj(c) && isObj(c.function)) parts.push({ type: 'tool_call', id: c.id, name: c.function.name, arguments: c.function.arguments });
    }
  }
  if (m.role === 'tool') return [{ type: 'tool_call_response', id: m.tool_call_id, response: typeof m.content === 'string' ? m.content : parts }];
  return parts;
}

/** Content blocks of any of the three formats: text kept, tool calls and results named, other kinds (images, audio) by type only. */
function blockParts(content: unknown): Part[] {
  if (typeof content === 'string') return [text(content)];
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const b of content) {
    if (!isObj(b)) continue;
    const t = str(b.type) ?? '';
    if (typeof b.text === 'string') parts.push(text(b.text));
    else if (t === 'tool_use') parts.push({ type: 'tool_call', id: b.id, name: b.name, arguments: b.input });
    else if (t === 'tool_result') parts.push({ type: 'tool_call_response', id: b.tool_use_id, response: b.content });
    else if (t !== '') parts.push({ type: t });
  }
  return parts;
}
