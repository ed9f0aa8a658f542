import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { parseJsonObject } from '../domain/json-body.js';
import { errors } from '../errors/catalog.js';
import { audioDurationSeconds } from '../lib/audio-duration.js';
import { boundaryOf, parseMultipart, type FormPart } from '../lib/multipart.js';
import { readExtensions, type Extensions } from '../domain/extensions.js';

/** The most fields a transcription form may have: OpenAI's take about ten. */
const MAX_FIELDS = 64;
/** Longest speech input, in characters (OpenAI's limit). */
export const MAX_SPEECH_CHARACTERS = 4096;
const EXTENSION_FIELDS = new Set(['optimize', 'provider', 'data_policy', 'upstream_key', 'guardrails']);

export interface TranscriptionRequest {
  model: string;
  ext: Extensions;
  /** Every field but `model` and the extensions, as the client sent them (`raw` is the wire form). */
  forward: FormPart[];
  /** The answer format asked for (OpenAI's default: json). */
  responseFormat: string;
  fileBytes: number;
  /** The audio's length as the gateway reads it from the file's own header, or null for a container it does not read. */
  probedSeconds: number | null;
}

export interface SpeechRequest {
  model: string;
  ext: Extensions;
  /** The JSON body without the extensions; the adapter swaps in the upstream model. */
  payload: Record<string, unknown>;
  /** Unicode code points of `input`: the billed unit. */
  characters: number;
}

/**
 * Reads a transcription upload (multipart/form-data, OpenAI's field names): `file` and `model`
 * are required, the gateway's extensions may come as text fields (`provider` repeated for an
 * ordered pin), and every other field passes through untouched.
 */
export function parseTranscriptionBody(contentType: string, body: Buffer, maxFileBytes: number): TranscriptionRequest {
  const boundary = boundaryOf(contentType);
  if (boundary === null) throw errors.badRequest('Expected a multipart/form-data body with a boundary (fields file and model)');
  const parts = parseMultipart(body, boundary, MAX_FIELDS);
  if (typeof parts === 'string') throw errors.badRequest(`Malformed multipart body: ${parts}`);
  let model: string | null = null;
  let file: Buffer | null = null;
  const extFields: Record<string, unknown> = {};
  const forward: FormPart[] = [];
  let responseFormat = 'json';
  for (const p of parts) {
    if (p.name === 'model') {
      if (model !== null) throw errors.badRequest("Invalid 'model': given more than once");
      model = p.data.toString('utf8').trim();
    } else if (EXTENSION_FIELDS.has(p.name)) {
      const v = p.data.toString('utf8');
      const had = extFields[p.name];
      if (p.name === 'provider' && had !== undefined) extFields.provider = [...(Array.isArray(had) ? had : [had]), v];
      else if (had !== undefined) throw errors.badRequest(`Invalid '${p.name}': given more than once`);
      else extFields[p.name] = v;
    } else {
      if (p.name === 'file') {
        if (file !== null) throw errors.badRequest("Invalid 'file': given more than once");
        file = p.data;
      }
      if (p.name === 'response_format') responseFormat = p.data.toString('utf8').trim();
      forward.push(p);
    }
  }
  if (!model) throw errors.badRequest("Invalid 'model': a model id is required");
  if (file === null || file.length === 0) throw errors.badRequest("Invalid 'file': an audio file is required");
  if (file.length > maxFileBytes) throw errors.payloadTooLarge(maxFileBytes, 'The audio file');
  return { model, ext: readExtensions(extFields), forward, responseFormat, fileBytes: file.length, probedSeconds: audioDurationSeconds(file) };
}

/** The form as documented in /openapi.json; parseTranscriptionBody checks what the gateway relies on. */
export const TranscriptionFormSchema = Type.Object({
  file: Type.String({ format: 'binary', description: 'the audio (flac, m4a, mp3, mp4, ogg, wav, webm), at most audio.maxFileBytes' }),
  model: Type.String({ minLength: 1 }),
  language: Type.Optional(Type.String()),
  prompt: Type.Optional(Type.String()),
  response_format: Type.Optional(Type.String({ description: 'json (default), text, srt, verbose_json or vtt' })),
  temperature: Type.Optional(Type.Number()),
  provider: Type.Optional(Type.String({ description: 'gateway extension: pin a provider; repeat the field for an ordered list' })),
  data_policy: Type.Optional(Type.String({ description: 'gateway extension: india_only, no_training or zero_retention' })),
  optimize: Type.Optional(Type.String({ description: 'gateway extension: price, latency or throughput' })),
  upstream_key: Type.Optional(Type.String({ description: 'gateway extension: your own key for the pinned provider' })),
});

export const SpeechBodySchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: Type.String({ minLength: 1 }),
  voice: Type.Union([Type.String({ minLength: 1 }), Type.Object({ id: Type.String({ minLength: 1 }) })]),
  response_format: Type.Optional(Type.Union(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'].map((f) => Type.Literal(f)))),
  speed: Type.Optional(Type.Number({ minimum: 0.25, maximum: 4 })),
  instructions: Type.Optional(Type.String()),
  stream_format: Type.Optional(Type.Union([Type.Literal('audio'), Type.Literal('sse')])),
});
const SPEECH_CHECK = TypeCompiler.Compile(SpeechBodySchema);

/** Reads a speech request (OpenAI's JSON shape); `input` is limited to 4,096 characters. */
export function parseSpeechBody(body: Buffer): SpeechRequest {
  const p = parseJsonObject(body.toString('utf8'), SPEECH_CHECK);
  const characters = codePoints(p.input as string);
  if (characters > MAX_SPEECH_CHARACTERS) {
    throw errors.badRequest(`Invalid 'input': ${characters} characters; the limit is ${MAX_SPEECH_CHARACTERS}`);
  }
  const ext = readExtensions(p);
  return { model: p.model as string, ext, payload: p, characters };
}

function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800) n--;
  }
  return n;
}
