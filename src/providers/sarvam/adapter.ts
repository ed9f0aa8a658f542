import type { AdapterCaps, Endpoint, ProviderAdapter, UpstreamCall } from '../types.js';

/** OpenAI's response_format → Sarvam's output_audio_codec. */
const CODECS: Record<string, string> = { mp3: 'mp3', opus: 'opus', aac: 'aac', flac: 'flac', wav: 'wav', pcm: 'linear16' };

/** Sarvam's language codes, by the primary subtag a caller may give (`hi`, `hi-IN`, `or` for Odia). */
const LANGUAGES: Record<string, string> = {
  hi: 'hi-IN', bn: 'bn-IN', ta: 'ta-IN', te: 'te-IN', kn: 'kn-IN', ml: 'ml-IN', mr: 'mr-IN', gu: 'gu-IN', pa: 'pa-IN', od: 'od-IN',
  or: 'od-IN', en: 'en-IN',
};

/** Unicode blocks of the Indic scripts, first code point → the language Bulbul reads them as (Devanagari: Hindi). */
const SCRIPTS: readonly [number, string][] = [
  [0x0900, 'hi-IN'], [0x0980, 'bn-IN'], [0x0a00, 'pa-IN'], [0x0a80, 'gu-IN'], [0x0b00, 'od-IN'], [0x0b80, 'ta-IN'], [0x0c00, 'te-IN'],
  [0x0c80, 'kn-IN'], [0x0d00, 'ml-IN'],
];

/**
 * Sarvam's own speech API (Bulbul: Hindi and ten other Indian languages, hosted in India), from
 * OpenAI's speech request: `input` → `text`, `voice` → `speaker`, `speed` → `pace`,
 * `response_format` → `output_audio_codec`. Its streaming endpoint answers with audio bytes, which
 * the gateway relays as they come. The language Bulbul requires is the request's `language` if it
 * gives one (`hi`, `mr-IN`…), else read from the script of the text (Devanagari as Hindi), else
 * Indian English. Sarvam's chat models stay on its OpenAI-compatible API (provider `sarvam`).
 */
export const sarvamAdapter: ProviderAdapter = {
  endpoints: new Set<Endpoint>(['speech']),
  buildCall(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, _caps: AdapterCaps): UpstreamCall {
    if (endpoint !== 'speech') throw new Error(`the sarvam adapter serves speech, not ${endpoint}`);
    const text = String(payload.input);
    const voice = payload.voice as string | { id: string };
    const body: Record<string, unknown> = {
      text,
      target_language_code: languageOf(payload.language, text),
      speaker: typeof voice === 'string' ? voice : voice.id,
      model: upstreamModel,
      output_audio_codec: CODECS[(payload.response_format as string | undefined) ?? 'mp3'],
    };
    if (typeof payload.speed === 'number') body.pace = payload.speed;
    return { path: '/text-to-speech/stream', body: JSON.stringify(body) };
  },
  authHeaders(apiKey: string): Record<string, string> {
    return { 'api-subscription-key': apiKey };
  },
};

function languageOf(given: unknown, text: string): string {
  if (typeof given === 'string') {
    const code = LANGUAGES[given.toLowerCase().split('-')[0]];
    if (code !== undefined) return code;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x0900 || c > 0x0d7f) continue;
    for (let s = SCRIPTS.length - 1; s >= 0; s--) if (c >= SCRIPTS[s][0]) return SCRIPTS[s][1];
  }
  return 'en-IN';
}
