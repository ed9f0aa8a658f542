// Child-process entry: the gateway's own transport with none of its work. uWebSockets.js in,
// the gateway's upstream pool (src/upstream) out; no auth, no parsing, no limits, no routing,
// no ledger. The gap between it and the gateway is what the gateway's logic costs; the gap
// between it and the mock called directly is what two extra loopback hops cost on this machine.
// argv[2] is the upstream origin (http://127.0.0.1:PORT); argv[3], optional, the most sockets to it
// (default 128; thousands of held streams need one each). Prints `{"port":N}` once listening.
import uWS from 'uWebSockets.js';
import { OriginPool } from '../src/upstream/origin-pool.js';
import type { ResponseSink } from '../src/upstream/response-sink.js';

const origin = process.argv[2];
if (!origin) throw new Error('usage: floor-proxy <upstream origin>');
const upstream = new URL(origin);
const pool = new OriginPool(upstream, {
  connections: Number(process.argv[3] ?? 128), connectTimeoutMs: 5_000, headersTimeoutMs: 30_000, bodyTimeoutMs: 30_000, idleTimeoutMs: 30_000,
});

/** Relays one answer: SSE as it arrives, anything else whole with its length. */
class Relay implements ResponseSink {
  readonly #res: uWS.HttpResponse;
  readonly #state: { aborted: boolean };
  #status = '200 OK';
  #type = 'application/json';
  #sse = false;
  #started = false;
  #chunks: Buffer[] = [];

  constructor(res: uWS.HttpResponse, state: { aborted: boolean }) {
    this.#res = res;
    this.#state = state;
  }

  onResponseHead(status: number, contentType: string | null): void {
    this.#status = `${status} ${status === 200 ? 'OK' : 'Upstream'}`;
    if (contentType !== null) this.#type = contentType;
    this.#sse = this.#type.startsWith('text/event-stream');
  }

  onResponseData(view: Buffer): boolean {
    if (this.#state.aborted) return true;
    if (!this.#sse) {
      this.#chunks.push(Buffer.from(view));
      return true;
    }
    this.#res.cork(() => {
      this.#head();
      this.#res.write(view);
    });
    return true;
  }

  onResponseEnd(): void {
    if (this.#state.aborted) return;
    this.#res.cork(() => {
      this.#head();
      if (this.#sse) this.#res.end();
      else this.#res.end(this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks));
    });
  }

  onResponseError(): void {
    if (this.#state.aborted) return;
    if (this.#started) this.#res.cork(() => this.#res.close());
    else this.#res.cork(() => this.#res.writeStatus('502 Bad Gateway').end('{"error":{"message":"upstream failed"}}'));
  }

  #head(): void {
    if (this.#started) return;
    this.#started = true;
    this.#res.writeStatus(this.#status).writeHeader('content-type', this.#type);
  }
}

const app = uWS.App();
app.post('/*', (res, req) => {
  const path = req.getUrl();
  const state = { aborted: false };
  res.onAborted(() => {
    state.aborted = true;
  });
  let body: Buffer | null = null;
  res.onData((ab, last) => {
    const piece = Buffer.from(ab);
    body = body === null ? Buffer.from(piece) : Buffer.concat([body, piece]);
    if (!last) return;
    const head = `POST ${path} HTTP/1.1\r\nhost: ${upstream.host}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    pool.request([Buffer.from(head, 'latin1'), body], new Relay(res, state));
  });
});
app.listen('127.0.0.1', 0, (token) => {
  if (!token) throw new Error('floor-proxy could not listen');
  process.stdout.write(JSON.stringify({ port: uWS.us_socket_local_port(token) }) + '\n');
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
