import * as assert from 'uvu/assert';

/**
 * One body read by a scan and by the full parse it stands in for. The scan may decline (null:
 * the full parse decides then), refuse (with the full parse's own error, asserted: 'refused'), or
 * read the body, which the full parse must then accept too (asserted): both readings are returned
 * for the caller to compare.
 */
export function scanVerdict<F, S>(full: () => F, scan: () => S | null, raw: Buffer, where: string): { fast: S; full: F } | 'refused' | null {
  let whole: F | Error;
  try {
    whole = full();
  } catch (e) {
    whole = e as Error;
  }
  let fast: S | null;
  try {
    fast = scan();
  } catch (e) {
    // A valid body with a bad extension value: the same refusal as the full parse's.
    assert.ok(whole instanceof Error, `${where}: the scan refused what the full parse accepts`);
    assert.is((e as Error).message, whole.message, where);
    return 'refused';
  }
  if (fast === null) return null;
  if (whole instanceof Error) {
    assert.unreachable(`${where}: the scan accepted what the full parse refuses (${whole.message}): ${JSON.stringify(raw.toString('latin1').slice(0, 400))}`);
    return null;
  }
  return { fast, full: whole };
}
