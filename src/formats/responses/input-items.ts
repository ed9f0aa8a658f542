import { randomHex } from '../../lib/random-hex.js';
import { errors } from '../../errors/catalog.js';
import type { Item } from './items.js';

// A Map, not an object's members: a name a client sends such as "constructor" would find Object.prototype's.
const PREFIX = new Map(Object.entries({ message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' }));

/**
 * Input items as OpenAI keeps them: each with an id (so input_items can page by `after`), and a
 * message's string content as one text part.
 */
export function storedItems(items: Item[]): Item[] {
  return items.map((it) => {
    const type = String(it.type ?? 'message');
    const out: Item = { id: typeof it.id === 'string' ? it.id : `${PREFIX.get(type) ?? 'item'}_${randomHex(24)}`, ...it, type };
    if (type === 'message' && typeof it.content === 'string') {
      out.content = [{ type: it.role === 'assistant' ? 'output_text' : 'input_text', text: it.content }];
    }
    return out;
  });
}

const PARAMS = new Set(['after', 'limit', 'order', 'include', 'include[]']);

/**
 * GET /v1/responses/{id}/input_items: the items that led to a stored response (the conversation
 * before it and its own input), newest first unless `order=asc`, `limit` 1-100 (default 20),
 * after the item id `after`.
 */
export function inputItemsPage(items: Item[], query: string): { object: 'list'; data: Item[]; first_id: string | null; last_id: string | null; has_more: boolean } {
  const q = new URLSearchParams(query);
  for (const k of q.keys()) if (!PARAMS.has(k)) throw errors.badRequest(`Unknown query parameter '${k.slice(0, 40)}'; this endpoint takes after, limit, order and include`);
  const order = q.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw errors.badRequest("Invalid 'order': expected asc or desc");
  const limitText = q.get('limit') ?? '20';
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100) throw errors.badRequest("Invalid 'limit': expected an integer from 1 to 100");
  const list = order === 'asc' ? items : [...items].reverse();
  let start = 0;
  const after = q.get('after');
  if (after !== null) {
    const at = list.findIndex((it) => it.id === after);
    if (at < 0) throw errors.badRequest(`Invalid 'after': no item '${after.slice(0, 80)}' in this response's input`);
    start = at + 1;
  }
  const data = list.slice(start, start + limit);
  return {
    object: 'list', data, first_id: (data[0]?.id as string | undefined) ?? null, last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: start + limit < list.length,
  };
}
