// Child-process entry: the least a proxy can do — node:http in, undici Pool out, no auth and
// no parsing. The gateway's overhead is judged against this, not against the mock alone.
// argv[2] is the upstream origin (http://127.0.0.1:PORT); argv[3], optional, the most sockets to it
// (default 128; thousands of held streams need one each). Prints `{"port":N}` once listening.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OutgoingHttpHeaders } from 'node:http';
import { Pool } from 'undici';

const origin = process.argv[2];
if (!origin) throw new Error('usage: bare-proxy <upstream origin>');
const pool = new Pool(origin, { connections: Number(process.argv[3] ?? 128), pipelining: 1 });

function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  pool.stream({
    method: req.method as 'POST',
    path: req.url ?? '/',
    headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
    body,
  }, ({ statusCode, headers }) => {
    const out: OutgoingHttpHeaders = { 'content-type': headers['content-type'] };
    // Forwarding the length keeps Node from re-framing JSON as chunked: a framing cost the
    // gateway need not pay either, so the baseline should not pay it.
    const length = headers['content-length'];
    if (typeof length === 'string') out['content-length'] = length;
    res.writeHead(statusCode, out);
    return res;
  }, (err) => {
    if (err === null) return;
    if (res.headersSent) res.destroy();
    else res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":{"message":"upstream failed"}}');
  });
}

const server = createServer({ keepAliveTimeout: 30_000, noDelay: true }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => forward(req, res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n');
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
