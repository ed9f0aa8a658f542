import type { DetectorId } from '../lib/guardrail-policy.js';
import { DETECTORS } from './detectors/registry.js';

/** One detector's match in a text: `[start, end)`. */
export interface Finding {
  id: DetectorId;
  start: number;
  end: number;
}

/**
 * Every match of the given detectors in `text`, in order and without overlaps: where two
 * overlap the one that starts first wins, and of two starting together the longer (a GSTIN
 * over the PAN inside it, a card over a mobile-shaped run of its digits).
 */
export function findAll(text: string, ids: readonly DetectorId[]): Finding[] {
  const found: Finding[] = [];
  for (const id of ids) {
    for (const p of DETECTORS[id].patterns) {
      if (p.needs !== undefined && !text.includes(p.needs)) continue;
      const re = p.re;
      re.lastIndex = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        const s = p.group === undefined ? m[0] : m[p.group];
        const end = m.index + m[0].length;
        if (p.valid === undefined || p.valid(s)) found.push({ id, start: end - s.length, end });
        // A failed check may hide a valid match that starts inside this one.
        else re.lastIndex = m.index + 1;
      }
    }
  }
  if (found.length < 2) return found;
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [found[0]];
  for (let i = 1; i < found.length; i++) if (found[i].start >= out[out.length - 1].end) out.push(found[i]);
  return out;
}

/** The marker a redacted match is replaced by. */
export function marker(id: DetectorId): string {
  return `[REDACTED:${id}]`;
}

/** `text` with each finding (in order, not overlapping) replaced by its marker. */
export function redacted(text: string, findings: readonly Finding[]): string {
  let out = '';
  let at = 0;
  for (const f of findings) {
    out += text.slice(at, f.start) + marker(f.id);
    at = f.end;
  }
  return out + text.slice(at);
}
