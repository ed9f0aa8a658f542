import { errors } from '../../errors/catalog.js';
import { encodeMultipart, textPart, type FormPart } from '../../lib/multipart.js';
import type { AdapterCaps, Endpoint, ProviderAdapter, UpstreamCall } from '../types.js';

/** OpenAI's response_format → Sarvam's output_audio_codec. */
// A Map, not an object's members: a name a client sends such as "constructor" would find Object.prototype's.
const CODECS = new Map(Object.entries({ mp3: 'mp3', opus: 'opus', aac: 'aac', flac: 'flac', wav: 'wav', pcm: 'linear16' }));

/** Sarvam's language codes, by the primary subtag a caller may give (`hi`, `hi-IN`, `or` for Odia). */
const LANGUAGES = new Map(Object.entries({
  hi: 'hi-IN', bn: 'bn-IN', ta: 'ta-IN', te: 'te-IN', kn: 'kn-IN', ml: 'ml-IN', mr: 'mr-IN', gu: 'gu-IN', pa: 'pa-IN', od: 'od-IN',
  or: 'od-IN', en: 'en-IN',
}));

/** Unicode blocks of the Indic scripts, first code point → the language Bulbul reads them as (Devanagari: Hindi). */
const SCRIPTS: readonly [number, string][] = [
  [0x0900, 'hi-IN'], [0x0980, 'bn-IN'], [0x0a00, 'pa-IN'], [0x0a80, 'gu-IN'], [0x0b00, 'od-IN'], [0x0b80, 'ta-IN'], [0x0c00, 'te-IN'],
  [0x0c80, 'kn-IN'], [0x0d00, 'ml-IN'],
];

/** The answer formats a Sarvam transcript can be given in: it has no timings for srt or vtt. */
const TRANSCRIPT_FORMATS = new Set(['json', 'text', 'verbose_json']);

/**
 * Sarvam's own speech APIs, hosted in India, in OpenAI's shapes. Speech (Bulbul: Hindi and ten
 * other Indian languages): `input` → `text`, `voice` → `speaker`, `speed` → `pace`,
 * `response_format` → `output_audio_codec`; its streaming endpoint answers with audio bytes, which
 * the gateway relays as they come. The language Bulbul requires is the request's `language` if it
 * gives one (`hi`, `mr-IN`…), else read from the script of the text (Devanagari as Hindi), else
 * Indian English. Speech to text (Saaras): the file and the model go up with `language` as
 * `language_code` (`unknown`, Sarvam's own detection, when absent), and the `transcript` comes back
 * as OpenAI's json, text or verbose_json. Sarvam's chat models stay on its OpenAI-compatible API
 * (provider `sarvam`).
 */
export const sarvamAdapter: ProviderAdapter = {
  endpoints: new Set<Endpoint>(['speech', 'transcriptions']),
  buildCall(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, _caps: AdapterCaps): UpstreamCall {
    if (endpoint !== 'speech') throw new Error(`the sarvam adapter serves speech, not ${endpoint}`);
    const text = String(payload.input);
    const voice = payload.voice as string | { id: string };
    const body: Record<string, unknown> = {
      text,
      target_language_code: languageOf(payload.language, text),
      speaker: typeof voice === 'string' ? voice : voice.id,
      model: upstreamModel,
      output_audio_codec: CODECS.get((payload.response_format as string | undefined) ?? 'mp3'),
    };
    if (typeof payload.speed === 'number') body.pace = payload.speed;
    return { path: '/text-to-speech/stream', body: JSON.stringify(body) };
  },
  buildFormCall(_endpoint: Endpoint, fields: readonly FormPart[], upstreamModel: string): UpstreamCall {
    let file: FormPart | null = null;
    let language = 'unknown';
    let format = 'json';
    for (const f of fields) {
      if (f.name === 'file') file = f;
      else if (f.name === 'language') language = sarvamLanguage(f.data.toString('utf8').trim()) ?? language;
      else if (f.name === 'response_format') format = f.data.toString('utf8').trim();
    }
    if (!TRANSCRIPT_FORMATS.has(format)) {
      throw errors.badRequest(`Invalid 'response_format': Sarvam transcribes to json, text or verbose_json, not '${format}'`);
    }
    // OpenAI's other fields (prompt, temperature, timestamp_granularities) have no Sarvam counterpart.
    const { body, contentType } = encodeMultipart([file!.raw, textPart('model', upstreamModel), textPart('language_code', language)]);
    return { path: '/speech-to-text', body, contentType };
  },
  readAnswer(endpoint: Endpoint, answer: Buffer, contentType: string, format: string): { body: Buffer | string; contentType: string } {
    if (endpoint !== 'transcriptions') return { body: answer, contentType };
    let doc: { transcript?: unknown; language_code?: unknown };
    try {
      doc = JSON.parse(answer.toString('utf8'));
    } catch {
      return { body: answer, contentType };
    }
    const text = typeof doc?.transcript === 'string' ? doc.transcript : '';
    if (format === 'text') return { body: text, contentType: 'text/plain; charset=utf-8' };
    const out = format === 'verbose_json'
      ? { task: 'transcribe', language: typeof doc.language_code === 'string' ? doc.language_code : null, text, segments: [] }
      : { text };
    return { body: JSON.stringify(out), contentType: 'application/json' };
  },
  authHeaders(apiKey: string): Record<string, string> {
    return { 'api-subscription-key': apiKey };
  },
};

/** `hi`, `hi-IN`, `or`… as Sarvam's code; a code with a region is taken as it is; null when empty. */
function sarvamLanguage(given: string): string | null {
  if (given === '') return null;
  return LANGUAGES.get(given.toLowerCase()) ?? (given.includes('-') ? given : `${given.toLowerCase()}-IN`);
}

function languageOf(given: unknown, text: string): string {
  if (typeof given === 'string') {
    const code = LANGUAGES.get(given.toLowerCase().split('-')[0]);
    if (code !== undefined) return code;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x0900 || c > 0x0d7f) continue;
    for (let s = SCRIPTS.length - 1; s >= 0; s--) if (c >= SCRIPTS[s][0]) return SCRIPTS[s][1];
  }
  return 'en-IN';
}
