// A real Gemini API (generativelanguage v1beta) on 127.0.0.1 for tests: generateContent,
// streamGenerateContent?alt=sse, batchEmbedContents and Google's error bodies, in the shapes
// Google publishes. It records what it receives (path with query, headers, body).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GeminiUsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
}

export type GeminiBehavior =
  /** A text answer; streamed, it is split into events of a few characters (multi-byte characters included). */
  | { kind: 'text'; text?: string; usage?: GeminiUsageMetadata }
  /** The model calls a function (finishReason STOP, as Gemini reports it). */
  | { kind: 'functionCall'; name: string; args: Record<string, unknown>; usage?: GeminiUsageMetadata }
  /** The prompt is blocked: promptFeedback.blockReason SAFETY and no candidates. */
  | { kind: 'blocked' }
  /** The answer is stopped by the safety filter mid-way (finishReason SAFETY). */
  | { kind: 'safety' }
  /** Streamed: some text events, then the connection ends with no finishReason. */
  | { kind: 'cut' }
  /** Google's error envelope. */
  | { kind: 'error'; status: number; code: string; message: string };

export interface GeminiRequest {
  method: string;
  /** Path and query, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface MockGemini {
  /** The base URL to give as providers.gemini.baseUrl (ends in /v1beta). */
  readonly url: string;
  readonly requests: GeminiRequest[];
  enqueue(...b: GeminiBehavior[]): void;
  reset(): void;
  close(): Promise<void>;
}

export const DEFAULT_TEXT = 'Namaste! नमस्ते, how can I help?';
/** A 2.5 model's counts with an implicit cache hit and thinking: prompt includes cached; total = prompt + candidates + thoughts. */
export const DEFAULT_USAGE: GeminiUsageMetadata = {
  promptTokenCount: 1200, cachedContentTokenCount: 1024, candidatesTokenCount: 9, thoughtsTokenCount: 31, totalTokenCount: 1240,
};
const SAFETY_RATINGS = [
  { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH' },
];

export async function startMockGemini(): Promise<MockGemini> {
  const requests: GeminiRequest[] = [];
  let queue: GeminiBehavior[] = [];
  let seq = 0;
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(parts).toString('utf8');
      let body: any = null;
      try {
        body = raw === '' ? null : JSON.parse(raw);
      } catch {
        body = raw;
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: headersOf(req), body });
      serve(req.url ?? '', body, queue.shift() ?? { kind: 'text' }, res, `resp-${++seq}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1beta`,
    requests,
    enqueue: (...b) => queue.push(...b),
    reset: () => {
      requests.length = 0;
      queue = [];
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) h[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return h;
}

function serve(url: string, body: any, b: GeminiBehavior, res: ServerResponse, responseId: string): void {
  const m = /^\/v1beta\/models\/([^:/?]+):(generateContent|streamGenerateContent|batchEmbedContents)(\?alt=sse)?$/.exec(url);
  if (m === null) return json(res, 404, errorBody(404, 'NOT_FOUND', `Method not found: ${url}`));
  if (b.kind === 'error') return json(res, b.status, errorBody(b.status, b.code, b.message));
  const model = decodeURIComponent(m[1]);
  if (m[2] === 'batchEmbedContents') return embed(res, model, body);
  if (m[2] === 'generateContent') return json(res, 200, whole(b, model, responseId));
  if (m[3] === undefined) return json(res, 400, errorBody(400, 'INVALID_ARGUMENT', 'the mock streams only with alt=sse'));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // Gemini frames its events with CRLF pairs and writes each as it is generated.
  const events = streamed(b, model, responseId).map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`);
  const write = (i: number): void => {
    if (i === events.length) {
      res.end();
      return;
    }
    res.write(events[i], () => setImmediate(write, i + 1));
  };
  write(0);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function errorBody(code: number, status: string, message: string): unknown {
  return { error: { code, message, status } };
}

function usageOf(b: GeminiBehavior): GeminiUsageMetadata {
  return ('usage' in b && b.usage) || DEFAULT_USAGE;
}

function whole(b: GeminiBehavior, model: string, responseId: string): unknown {
  const base = { modelVersion: model, responseId };
  switch (b.kind) {
    case 'blocked':
      return { promptFeedback: { blockReason: 'SAFETY', safetyRatings: SAFETY_RATINGS }, usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 }, ...base };
    case 'safety':
      return { candidates: [{ content: { parts: [{ text: 'Here is how' }], role: 'model' }, finishReason: 'SAFETY', index: 0, safetyRatings: SAFETY_RATINGS }],
        usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 3, totalTokenCount: 11 }, ...base };
    case 'functionCall':
      return { candidates: [{ content: { parts: [{ functionCall: { name: b.name, args: b.args } }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usageOf(b), ...base };
    default:
      return { candidates: [{ content: { parts: [{ text: b.kind === 'text' ? b.text ?? DEFAULT_TEXT : DEFAULT_TEXT }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usageOf(b), ...base };
  }
}

/** The events of a streamed answer: usageMetadata on every event (as Gemini sends it), the final counts on the last. */
function streamed(b: GeminiBehavior, model: string, responseId: string): unknown[] {
  const base = { modelVersion: model, responseId };
  if (b.kind === 'blocked' || b.kind === 'functionCall' || b.kind === 'safety') return [whole(b, model, responseId)];
  const text = b.kind === 'text' ? b.text ?? DEFAULT_TEXT : DEFAULT_TEXT;
  const usage = usageOf(b);
  const pieces = [...text.matchAll(/.{1,8}/gsu)].map((x) => x[0]);
  const events = pieces.map((p, i) => ({
    candidates: [{ content: { parts: [{ text: p }], role: 'model' }, index: 0, ...(i === pieces.length - 1 && b.kind !== 'cut' ? { finishReason: 'STOP' } : {}) }],
    usageMetadata: i === pieces.length - 1 ? usage : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
    ...base,
  }));
  return b.kind === 'cut' ? events.slice(0, 2) : events;
}

function embed(res: ServerResponse, model: string, body: any): void {
  const reqs: any[] = Array.isArray(body?.requests) ? body.requests : [];
  for (const r of reqs) {
    if (r.model !== `models/${model}`) {
      return json(res, 400, errorBody(400, 'INVALID_ARGUMENT', `* BatchEmbedContentsRequest.model: unexpected model name format`));
    }
  }
  // Deterministic vectors a test can recompute: the text's length, its first code unit, and a constant.
  const embeddings = reqs.map((r) => {
    const text: string = r.content?.parts?.[0]?.text ?? '';
    return { values: [text.length / 100, (text.charCodeAt(0) || 0) / 1000, 0.5] };
  });
  json(res, 200, { embeddings });
}
