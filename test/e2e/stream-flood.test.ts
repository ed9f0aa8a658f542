import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { chatBody } from '../support/wait.js';

let gw: GatewayProcess;
let up: MockProvider;
let key: string;

test.before(async () => {
  up = await startMockProvider();
  gw = await startGateway({ providers: { groq: { baseUrl: up.url, apiKey: 'k1' } } });
  ({ key } = await gw.orgAndKey({ credit: 100_000 }));
  up.setDefault({ kind: 'sseFlood' });
});
test.after(async () => {
  await gw.cleanup();
  await up.close();
});

/**
 * A strict reader of one chunked HTTP/1.1 response: every chunk size line is bare hex ended by
 * CRLF, every chunk's data is followed by CRLF, and the SSE inside is whole `data:` events whose
 * contents count up by one (so a lost, repeated or misplaced byte shows). It reads slowly,
 * pausing after every MB, so the gateway keeps meeting backpressure.
 */
class ChunkedReader {
  headers = '';
  bytes = 0;
  events = 0;
  error: string | null = null;
  #state: 'head' | 'size' | 'data' | 'crlf' | 'end' = 'head';
  #line = '';
  #left = 0;
  #sse = '';
  #next = -1;

  push(b: Buffer): void {
    let i = 0;
    while (i < b.length && this.error === null) {
      switch (this.#state) {
        case 'head': {
          const all = this.headers + b.toString('latin1', i);
          const end = all.indexOf('\r\n\r\n');
          if (end < 0) {
            this.headers = all;
            return;
          }
          i = b.length - (all.length - end - 4);
          this.headers = all.slice(0, end);
          if (!/\r\ntransfer-encoding: chunked/i.test(this.headers)) this.error = `not chunked: ${this.headers}`;
          this.#state = 'size';
          break;
        }
        case 'size': {
          const c = b[i++];
          if (c === 0x0d) continue;
          if (c !== 0x0a) {
            this.#line += String.fromCharCode(c);
            continue;
          }
          if (!/^[0-9a-fA-F]{1,8}$/.test(this.#line)) {
            this.error = `bad chunk size line ${JSON.stringify(this.#line.slice(0, 40))} after ${this.bytes} bytes`;
            return;
          }
          this.#left = parseInt(this.#line, 16);
          this.#line = '';
          this.#state = this.#left === 0 ? 'end' : 'data';
          break;
        }
        case 'data': {
          const n = Math.min(this.#left, b.length - i);
          this.#sse += b.toString('latin1', i, i + n);
          this.#left -= n;
          this.bytes += n;
          i += n;
          if (this.#left === 0) {
            this.#state = 'crlf';
            this.#line = '';
            this.#events();
          }
          break;
        }
        case 'crlf': {
          this.#line += String.fromCharCode(b[i++]);
          if (this.#line.length === 2) {
            if (this.#line !== '\r\n') this.error = `chunk data not followed by CRLF after ${this.bytes} bytes`;
            this.#line = '';
            this.#state = 'size';
          }
          break;
        }
        case 'end':
          this.error = 'bytes after the terminating chunk';
          return;
      }
    }
  }

  #events(): void {
    for (let at = this.#sse.indexOf('\n\n'); at >= 0 && this.error === null; at = this.#sse.indexOf('\n\n')) {
      const event = this.#sse.slice(0, at);
      this.#sse = this.#sse.slice(at + 2);
      if (!event.startsWith('data: {')) {
        this.error = `not an SSE data event: ${JSON.stringify(event.slice(0, 60))}`;
        return;
      }
      const n = parseInt(JSON.parse(event.slice(6)).choices[0].delta.content, 10);
      if (this.#next >= 0 && n !== this.#next) {
        this.error = `event ${n} where ${this.#next} was due`;
        return;
      }
      this.#next = n + 1;
      this.events++;
    }
  }
}

/** Floods one stream through the gateway for `ms`, reading slowly, then hangs up. */
function flood(ms: number): Promise<ChunkedReader> {
  const body = chatBody({ stream: true, stream_options: { include_usage: true } });
  const reader = new ChunkedReader();
  return new Promise((resolve, reject) => {
    const s: Socket = connect(gw.port, '127.0.0.1');
    s.on('error', reject);
    s.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    let sincePause = 0;
    const stop = setTimeout(() => s.destroy(), ms);
    s.on('data', (b: Buffer) => {
      reader.push(b);
      if (reader.error !== null) s.destroy();
      sincePause += b.length;
      if (sincePause > 1 << 20) {
        // A slow client: the gateway's writes back up while this one is paused.
        sincePause = 0;
        s.pause();
        setTimeout(() => s.resume(), 15);
      }
    });
    s.on('close', () => {
      clearTimeout(stop);
      resolve(reader);
    });
  });
}

test('an endless upstream flood reaches a slow client with intact chunked framing and no byte lost', async () => {
  for (let round = 0; round < 3; round++) {
    const readers = await Promise.all([flood(1500), flood(1500), flood(1500)]);
    for (const r of readers) {
      assert.is(r.error, null, `round ${round}: ${r.error}`);
      assert.ok(r.events > 100, `round ${round}: only ${r.events} events arrived`);
      assert.ok(r.headers.startsWith('HTTP/1.1 200'), r.headers.slice(0, 40));
    }
  }
});

test.run();
