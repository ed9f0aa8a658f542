// How deep a parsed JSON value nests. V8's JSON.parse takes any depth, but much that runs on
// the value afterwards recurses (JSON.stringify, a template string of an array, schema error
// walkers), and past a few thousand levels that overflows the stack: a RangeError, which was a
// 500 on /me/* and a failed route (breaker counted) on inference. Checking once after parsing
// keeps every later step safe.

/**
 * Whether `v` nests arrays and objects more than `max` levels deep. It visits each array and
 * object once and never descends past `max`, so it cannot overflow itself. Strings are leaves,
 * so a 1 KB chat body is a handful of visits, where a scan of the text reads every byte.
 */
export function jsonNestsDeeperThan(v: unknown, max: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (max === 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (jsonNestsDeeperThan(v[i], max - 1)) return true;
    return false;
  }
  for (const k in v) if (jsonNestsDeeperThan((v as Record<string, unknown>)[k], max - 1)) return true;
  return false;
}
