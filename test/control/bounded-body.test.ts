import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fetch } from 'undici';
import { readBounded } from '../../src/control/bounded-body.js';

test('answers from outside services are read up to a limit, declared or chunked', async () => {
  let written = 0;
  const server = createServer((req, res) => {
    if (req.url === '/small') res.end('{"ok":true}');
    else if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      res.write(Buffer.alloc(1024));
    } else {
      // Chunked and endless: only the reader's limit stops it.
      const more = (): void => {
        while (res.write(Buffer.alloc(16 * 1024))) written += 16 * 1024;
        res.once('drain', more);
      };
      more();
      res.on('close', () => res.removeAllListeners('drain'));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    assert.is((await readBounded(await fetch(`${url}/small`), 1024)).toString(), '{"ok":true}');
    for (const path of ['/declared', '/endless']) {
      const e = await readBounded(await fetch(url + path), 64 * 1024).then(() => null, (err: Error) => err);
      assert.match(e?.message ?? '', /answer larger than 65536 bytes/, path);
    }
    assert.ok(written < 8 * 1024 * 1024, `the endless answer stopped being read (${written} bytes written)`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test.run();
