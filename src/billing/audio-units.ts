import type { Route } from '../catalog/catalog.js';

/**
 * Bytes a second assumed for audio whose length neither the provider nor the file's header
 * gives (WebM, AAC in ADTS): 128 kbit/s, a common rate for recorded speech. Lower-rate files
 * are then billed short of their length, never beyond it at this rate or above.
 */
export const FALLBACK_BYTES_PER_SECOND = 16_000;

/** Billed seconds of a transcription: whole seconds, rounded up, at least one. */
export function billedSeconds(seconds: number): number {
  return Math.max(1, Math.ceil(seconds - 1e-6));
}

/**
 * The audio length a provider reports in a JSON transcription: OpenAI's `usage` of type
 * `duration`, else the `duration` of a verbose_json answer (Groq, speaches, whisper.cpp).
 */
export function reportedSeconds(answer: Buffer, contentType: string): number | null {
  if (!contentType.startsWith('application/json')) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(answer.toString('utf8'));
  } catch {
    return null;
  }
  const d = doc as { usage?: { type?: unknown; seconds?: unknown }; duration?: unknown } | null;
  const s = d?.usage?.type === 'duration' ? d.usage.seconds : d?.duration;
  return typeof s === 'number' && Number.isFinite(s) && s > 0 ? s : null;
}

/** Cost of `units` at a route's price (seconds of audio, or characters), in micro-rupees. */
export function unitCostMicros(route: Route, units: number): number {
  return Math.round(units * route.inputMicrosPerUnit);
}

/** The most `units` can cost on any of the planned routes (not on the caller's own key): the hold taken before the call. */
export function maxUnitCostMicros(routes: readonly { route: Route; byok: boolean }[], units: number): number {
  let worst = 0;
  for (const { route, byok } of routes) if (!byok) worst = Math.max(worst, units * route.inputMicrosPerUnit);
  return Math.ceil(worst);
}
