/**
 * Prompt-cache markers for `cache: "auto"` (docs/cache.md). Anthropic caches a prompt prefix only
 * where a block carries `cache_control`; the gateway puts one on the last tool and one on the
 * last system block, the parts an agent sends unchanged turn after turn, so the next request
 * reads them at the cached price. Nothing is marked when the client marked anything itself (it
 * manages its own breakpoints, at most 4) or when the prefix is too short to be cached.
 */

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * The fewest prompt tokens Anthropic caches: 2,048 for Haiku models, 1,024 for the others. The
 * prefix's size is judged by characters at 3 a token (code and JSON run about 3–4), so a prefix
 * near the bound is marked rather than missed: a marker on a prefix too short is ignored, not refused.
 */
const minPrefixChars = (model: string): number => (model.includes('haiku') ? 2_048 : 1_024) * 3;

/** Adds the markers to an Anthropic Messages body (model, system, tools, messages) in place. */
export function markStablePrefix(body: Record<string, unknown>, model: string): void {
  if (markedByClient(body)) return;
  const tools = Array.isArray(body.tools) && body.tools.length > 0 ? body.tools as Record<string, unknown>[] : null;
  const system = typeof body.system === 'string' ? (body.system.length > 0 ? [{ type: 'text', text: body.system }] : null)
    : Array.isArray(body.system) && body.system.length > 0 ? body.system as Record<string, unknown>[] : null;
  const toolChars = tools === null ? 0 : JSON.stringify(tools).length;
  const systemChars = system === null ? 0 : JSON.stringify(system).length;
  const min = minPrefixChars(model);
  // The prefix runs tools, then system: a marker on the system block caches both together.
  if (system !== null && toolChars + systemChars >= min) {
    const last = system.length - 1;
    system[last] = { ...system[last], cache_control: EPHEMERAL };
    body.system = system;
  }
  // Tools alone as well, so a changed system prompt still reads the tools from the cache.
  if (tools !== null && toolChars >= min) {
    const last = tools.length - 1;
    tools[last] = { ...tools[last], cache_control: EPHEMERAL };
  }
}

const hasMarker = (x: unknown): boolean => typeof x === 'object' && x !== null && 'cache_control' in x;

/** Whether the client put a breakpoint anywhere: on the body, a tool, a system block or a message block. */
function markedByClient(body: Record<string, unknown>): boolean {
  if (hasMarker(body)) return true;
  if (Array.isArray(body.tools) && body.tools.some(hasMarker)) return true;
  if (Array.isArray(body.system) && body.system.some(hasMarker)) return true;
  if (!Array.isArray(body.messages)) return false;
  for (const m of body.messages as { content?: unknown }[]) {
    if (Array.isArray(m?.content) && m.content.some(hasMarker)) return true;
  }
  return false;
}
