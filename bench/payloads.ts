// Request bodies shared by every scenario, serialised once so the load generator measures
// the servers, not JSON.stringify.
export const BENCH_MODEL = 'gpt-4o-mini';
export const CHAT_PATH = '/v1/chat/completions';

const SYSTEM = 'You are a concise assistant for a benchmark. Answer in one short sentence. ';
const USER = 'Summarise why request latency matters for interactive chat applications. ';

function chatBody(extra: Record<string, unknown>, targetBytes: number): string {
  const body = { model: BENCH_MODEL, messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: '' }], ...extra };
  const bare = JSON.stringify(body).length;
  body.messages[1].content = USER.repeat(Math.ceil((targetBytes - bare) / USER.length)).slice(0, Math.max(0, targetBytes - bare));
  return JSON.stringify(body);
}

/** ~1 KB non-streaming chat request, the shape of a typical short conversation turn. */
export const CHAT_BODY = chatBody({}, 1024);

// Usage is requested on every target so all three emit the same events: a billing gateway
// asks for it upstream anyway.
export const STREAM_BODY = chatBody({ stream: true, stream_options: { include_usage: true } }, 1024);

/** The same stream with no stream_options: the gateway still asks for usage, and drops the usage chunk for the client. */
export const STREAM_BODY_NO_USAGE = chatBody({ stream: true }, 1024);

/** A model whose route has another id upstream (groq's llama-3.3-70b-versatile): every chunk's model is renamed. */
export const RENAMED_MODEL = 'llama-3.3-70b-instruct';
export const STREAM_BODY_RENAMED = JSON.stringify({ ...JSON.parse(STREAM_BODY), model: RENAMED_MODEL });

export const STREAM_CHUNKS = 20;

/** The Responses API path: the same ~1 KB turn, translated to chat completions and back. */
export const RESPONSES_PATH = '/v1/responses';
const chat = JSON.parse(CHAT_BODY) as { messages: { content: string }[] };
// store: false, so the numbers are the translation's: a stored answer adds one SQLite insert.
export const RESPONSES_BODY = JSON.stringify({ model: BENCH_MODEL, instructions: chat.messages[0].content, input: chat.messages[1].content, store: false });
export const RESPONSES_STREAM_BODY = JSON.stringify({ ...JSON.parse(RESPONSES_BODY), stream: true });
/** What ends a finished Responses stream (its last write holds the whole final event). */
export const RESPONSES_DONE = Buffer.from('"type":"response.completed"');

/** The Anthropic Messages API path (Claude Code's): the same turn, translated to chat completions and back. */
export const MESSAGES_PATH = '/v1/messages';
export const MESSAGES_BODY = JSON.stringify({ model: BENCH_MODEL, max_tokens: 1024, system: chat.messages[0].content,
  messages: [{ role: 'user', content: chat.messages[1].content }] });
export const MESSAGES_STREAM_BODY = JSON.stringify({ ...JSON.parse(MESSAGES_BODY), stream: true });
/** What ends a finished Messages stream. */
export const MESSAGES_DONE = Buffer.from('"type":"message_stop"');

export function requestHeaders(apiKey?: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

/** A Claude model: chat completions in, the anthropic provider's Messages API out (translated both ways). */
export const ANTHROPIC_MODEL = 'claude-haiku-4-5';
export const CHAT_BODY_ANTHROPIC = JSON.stringify({ ...JSON.parse(CHAT_BODY), model: ANTHROPIC_MODEL });
export const STREAM_BODY_ANTHROPIC = JSON.stringify({ ...JSON.parse(STREAM_BODY), model: ANTHROPIC_MODEL });

/**
 * An agent's turn, ~200 KB: the whole conversation sent again, as coding agents do. A system
 * prompt, user turns in prose, assistant tool calls (arguments are JSON inside a string) and
 * tool outputs holding source code, so the body has the escapes real ones have (\n on every
 * line, \" in code) as well as long plain runs. Deterministic, so every target gets the same bytes.
 */
export function agentBody(targetBytes: number, extra: Record<string, unknown> = {}): string {
  const code = 'export function total(items: Item[]): number {\n  let sum = 0;\n  for (const it of items) sum += it.price * it.qty; // "price" in paise\n  return sum;\n}\n';
  const prose = 'Please refactor the billing module so that totals are computed in paise, add tests for the rounding rules, and keep the public API unchanged. ';
  const messages: Record<string, unknown>[] = [{ role: 'system', content: 'You are a coding agent working in a TypeScript repository. Use the tools to read and edit files. '.repeat(20) }];
  for (let i = 0; JSON.stringify(messages).length < targetBytes - 200; i++) {
    messages.push({ role: 'user', content: prose.repeat(3 + (i % 4)) });
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/billing/file-${i}.ts` }) } }] });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: code.repeat(4 + (i % 6)) });
  }
  return JSON.stringify({ model: BENCH_MODEL, messages, ...extra });
}

/** The agent-sized scenario: a ~200 KB conversation, answered with a short JSON completion. */
export const AGENT_BODY = agentBody(200 * 1024);
/** The same turn to a Claude model: chat completions in, Anthropic's Messages API out. */
export const AGENT_BODY_ANTHROPIC = agentBody(200 * 1024, { model: ANTHROPIC_MODEL });

/** The same agent's conversation as the Responses API carries it (Codex CLI): input items, with function calls and their outputs. */
export function responsesAgentBody(targetBytes: number): string {
  const chatTurns = (JSON.parse(agentBody(targetBytes)) as { messages: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[] }).messages;
  const input: Record<string, unknown>[] = [];
  for (const m of chatTurns.slice(1)) {
    if (m.role === 'user') input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: m.content }] });
    else if (m.role === 'assistant') for (const c of m.tool_calls ?? []) input.push({ type: 'function_call', call_id: c.id, name: c.function.name, arguments: c.function.arguments });
    else input.push({ type: 'function_call_output', call_id: m.tool_call_id, output: m.content });
  }
  return JSON.stringify({ model: BENCH_MODEL, instructions: chatTurns[0].content, input, store: false });
}

/** The same conversation as Anthropic's Messages API carries it (Claude Code): text, tool_use and tool_result blocks. */
export function messagesAgentBody(targetBytes: number): string {
  const chatTurns = (JSON.parse(agentBody(targetBytes)) as { messages: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[] }).messages;
  // Roles alternate, as Anthropic requires: a tool's result and the user's next words are one turn.
  const messages: { role: string; content: Record<string, unknown>[] }[] = [];
  for (const m of chatTurns.slice(1)) {
    const last = messages[messages.length - 1];
    if (m.role === 'assistant') {
      messages.push({ role: 'assistant', content: (m.tool_calls ?? []).map((c) => ({ type: 'tool_use', id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) })) });
      continue;
    }
    const block = m.role === 'user' ? { type: 'text', text: m.content } : { type: 'tool_result', tool_use_id: m.tool_call_id, content: m.content };
    if (last?.role === 'user') last.content.push(block);
    else messages.push({ role: 'user', content: [block] });
  }
  return JSON.stringify({ model: BENCH_MODEL, max_tokens: 4096, system: [{ type: 'text', text: chatTurns[0].content }], messages });
}

export const RESPONSES_AGENT_BODY = responsesAgentBody(200 * 1024);
export const MESSAGES_AGENT_BODY = messagesAgentBody(200 * 1024);

/**
 * An agent's turn streamed, as Codex and Claude Code send every turn: `stream: true`, and a chat
 * completions body asks for usage in the stream as the other streamed scenarios do (the Messages
 * and Responses APIs always carry it).
 */
export function streamedTurn(body: string, chat: boolean): string {
  return JSON.stringify({ ...JSON.parse(body), stream: true, ...(chat ? { stream_options: { include_usage: true } } : {}) });
}

/** Claude Code on a Claude model: the Messages API in, Anthropic's own API out (the native path: no translation). */
export const MESSAGES_NATIVE_BODY = JSON.stringify({ ...JSON.parse(MESSAGES_BODY), model: ANTHROPIC_MODEL });
export const MESSAGES_NATIVE_STREAM_BODY = JSON.stringify({ ...JSON.parse(MESSAGES_STREAM_BODY), model: ANTHROPIC_MODEL });
export const MESSAGES_NATIVE_AGENT_BODY = JSON.stringify({ ...JSON.parse(MESSAGES_AGENT_BODY), model: ANTHROPIC_MODEL });
