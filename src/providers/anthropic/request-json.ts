import { jsonString, writeJson } from '../../lib/json-write.js';

type Obj = Record<string, unknown>;

/**
 * JSON.stringify(body) for a Messages request toMessagesRequest built (prompt-cache markers
 * included): the conversation's turns and text blocks, a request's bulk, are written around
 * their strings; every other member and block goes through writeJson. The shapes are the ones
 * messages.ts and content.ts make (a turn is {role, content}; a text block {type, text} and
 * perhaps cache_control, last). writeJson's walk of the whole body cost 27.4k instructions
 * for the benchmark's 1 KB chat request, much of it in generic code V8 left in baseline; this
 * writer 11.7k (bench:instructions, gateway-anthropic, inclusive, issue 17).
 * test/providers/anthropic-request-json.test.ts holds it to JSON.stringify.
 */
export function messagesRequestJson(body: Obj): string {
  let out = '{';
  const keys = Object.keys(body);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = body[k];
    let json: string | undefined;
    if (k === 'messages' && Array.isArray(v)) json = turns(v as Obj[]);
    else if (k === 'system' && Array.isArray(v)) json = blocks(v as Obj[]);
    else if (v === undefined || typeof v === 'function' || typeof v === 'symbol') json = undefined;
    else json = writeJson(v);
    if (json === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${jsonString(k)}:${json}`;
  }
  return `${out}}`;
}

function turns(messages: readonly Obj[]): string {
  let out = '[';
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (i > 0) out += ',';
    out += typeof m.role === 'string' && Array.isArray(m.content)
      ? `{"role":${jsonString(m.role)},"content":${blocks(m.content as Obj[])}}` : writeJson(m);
  }
  return `${out}]`;
}

function blocks(list: readonly Obj[]): string {
  let out = '[';
  for (let i = 0; i < list.length; i++) {
    const b = list[i];
    if (i > 0) out += ',';
    if (b !== null && typeof b === 'object' && b.type === 'text' && typeof b.text === 'string') {
      const cache = b.cache_control;
      out += `{"type":"text","text":${jsonString(b.text)}${cache === undefined ? '' : `,"cache_control":${writeJson(cache)}`}}`;
    } else {
      out += writeJson(b) ?? 'null';
    }
  }
  return `${out}]`;
}
