// Child-process entry for bench/h2-upstream.bench.ts: a provider that streams slowly, over
// HTTP/1.1 (node:http) or HTTP/2 (node:http2), in clear or over TLS, with the same answers:
//   POST /v1/chat/completions   an SSE stream: a chunk at once, then one every `interval` ms
//                               (query `?interval=`, default 1000), `chunks` in all, then the usage
//                               chunk and `data: [DONE]`
//   POST /short                 a small JSON answer, as a non-streamed completion is
// argv[2]: JSON {"protocol":"h1"|"h2","tls":bool,"chunks":N,"maxStreams":N}. Prints {"port":N}.
import { createServer as createH1, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createH1s } from 'node:https';
import { createServer as createH2, createSecureServer as createH2s, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

interface MockOptions {
  protocol: 'h1' | 'h2';
  tls: boolean;
  chunks: number;
  /** SETTINGS_MAX_CONCURRENT_STREAMS (h2): what one connection may carry; providers allow 100-250. */
  maxStreams: number;
}

const o = JSON.parse(process.argv[2] ?? '{}') as MockOptions;
const FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
const tls = o.tls ? { cert: readFileSync(FIXTURES + 'localhost-cert.pem'), key: readFileSync(FIXTURES + 'localhost-key.pem') } : null;

const SSE = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const SHORT = Buffer.from(JSON.stringify({
  id: 'chatcmpl-short', object: 'chat.completion', created: 0, model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'mock reply' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
}));
const PREFIX = 'data: {"id":"chatcmpl-mock","object":"chat.completion.chunk","created":0,"model":"gpt-4o-mini","choices":';
const EVENTS: string[] = [];
for (let i = 0; i < o.chunks; i++) {
  EVENTS.push(`${PREFIX}[{"index":0,"delta":{"content":"tok${i} "},"finish_reason":${i === o.chunks - 1 ? '"stop"' : 'null'}}]}\n\n`);
}
EVENTS.push(`${PREFIX}[],"usage":{"prompt_tokens":11,"completion_tokens":${o.chunks},"total_tokens":${11 + o.chunks}}}\n\n`);
const DONE = 'data: [DONE]\n\n';

type Req = IncomingMessage | Http2ServerRequest;
// The calls used here take the same arguments on both protocols' responses.
type Res = ServerResponse;

function handle(req: Req, r: ServerResponse | Http2ServerResponse): void {
  const res = r as Res;
  req.resume();
  req.on('end', () => {
    const url = req.url ?? '/';
    if (url.startsWith('/short')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': SHORT.length });
      res.end(SHORT);
      return;
    }
    const q = url.indexOf('interval=');
    const interval = q < 0 ? 1000 : Number(url.slice(q + 9));
    res.writeHead(200, SSE);
    if (interval <= 0) {
      res.end(EVENTS.join('') + DONE);
      return;
    }
    let i = 0;
    let timer: NodeJS.Timeout | null = null;
    const step = (): void => {
      if (res.destroyed) return;
      if (i < EVENTS.length) {
        res.write(EVENTS[i++]);
        timer = setTimeout(step, interval);
      } else {
        res.end(DONE);
      }
    };
    res.once('close', () => {
      if (timer !== null) clearTimeout(timer);
    });
    step();
  });
}

const server = o.protocol === 'h2'
  ? (tls ? createH2s({ ...tls, settings: { maxConcurrentStreams: o.maxStreams } }, handle)
    : createH2({ settings: { maxConcurrentStreams: o.maxStreams } }, handle))
  : (tls ? createH1s({ ...tls, keepAliveTimeout: 60_000 }, handle) : createH1({ keepAliveTimeout: 60_000 }, handle));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n');
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
