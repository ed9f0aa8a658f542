import { errors } from '../../errors/catalog.js';
import { contentBlocks, textBlocks, type Block } from './content.js';

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

export interface Conversation {
  /** System and developer messages, lifted out of the conversation (Anthropic takes them apart). */
  system: Block[];
  messages: AnthropicMessage[];
}

/**
 * OpenAI chat messages → Anthropic's `system` and `messages`. Assistant `tool_calls` become
 * `tool_use` blocks; `tool` messages become `tool_result` blocks in a user turn; consecutive
 * turns of one role are merged into one, as Anthropic requires alternating roles.
 */
export function toConversation(messages: readonly unknown[]): Conversation {
  const system: Block[] = [];
  const out: AnthropicMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const where = `messages[${i}]`;
    const m = messages[i] as Record<string, unknown>;
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(...withMessageCache(textBlocks(m.content, where), m));
        break;
      case 'user':
        push(out, 'user', withMessageCache(contentBlocks(m.content, where), m));
        break;
      case 'assistant':
        push(out, 'assistant', [...withMessageCache(contentBlocks(m.content, where), m), ...toolUses(m.tool_calls, where)]);
        break;
      case 'tool':
        push(out, 'user', [toolResult(m, where)]);
        break;
      default:
        throw errors.badRequest(`Invalid '${where}.role': Anthropic models take system, developer, user, assistant and tool messages, not '${String(m.role)}'`);
    }
  }
  return { system, messages: out };
}

function push(out: AnthropicMessage[], role: 'user' | 'assistant', blocks: Block[]): void {
  // A turn with nothing in it (an assistant message of empty content) is left out, not sent empty.
  if (blocks.length === 0) return;
  const last = out[out.length - 1];
  if (last !== undefined && last.role === role) last.content.push(...blocks);
  else out.push({ role, content: blocks });
}

/** A message-level `cache_control` (some clients mark whole messages) marks its last block. */
function withMessageCache(blocks: Block[], m: Record<string, unknown>): Block[] {
  if (m.cache_control !== undefined && blocks.length > 0) blocks[blocks.length - 1].cache_control = m.cache_control;
  return blocks;
}

function toolUses(calls: unknown, where: string): Block[] {
  if (calls === undefined || calls === null) return [];
  if (!Array.isArray(calls)) throw errors.badRequest(`Invalid '${where}.tool_calls': expected an array`);
  return calls.map((c, j) => {
    const call = c as { id?: unknown; function?: { name?: unknown; arguments?: unknown } } | null;
    const at = `${where}.tool_calls[${j}]`;
    if (typeof call?.id !== 'string' || typeof call.function?.name !== 'string') {
      throw errors.badRequest(`Invalid '${at}': expected an id and a function name`);
    }
    return { type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments, at) };
  });
}

/** OpenAI carries a call's arguments as JSON text; Anthropic as the object itself. */
function toolInput(args: unknown, where: string): unknown {
  if (args === undefined || args === null || args === '') return {};
  if (typeof args !== 'string') throw errors.badRequest(`Invalid '${where}.function.arguments': expected a JSON string`);
  let input: unknown;
  try {
    input = JSON.parse(args);
  } catch {
    throw errors.badRequest(`Invalid '${where}.function.arguments': not valid JSON`);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw errors.badRequest(`Invalid '${where}.function.arguments': Anthropic takes a JSON object`);
  }
  return input;
}

function toolResult(m: Record<string, unknown>, where: string): Block {
  if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '') throw errors.badRequest(`Invalid '${where}.tool_call_id': expected a string`);
  const blocks = withMessageCache(textBlocks(m.content, where), m);
  const result: Block = { type: 'tool_result', tool_use_id: m.tool_call_id };
  if (blocks.length > 0) result.content = blocks;
  return result;
}
