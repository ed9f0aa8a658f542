// Child-process entry: the mock provider alone, so benchmarks measure it on its own core
// rather than sharing the load generator's event loop.
// argv[2] (or MOCK_DEFAULT) is the initial default behaviour as JSON. Each stdin line
// `{"default": Behavior}` replaces it and is acknowledged with `{"default":"<kind>"}`, so one
// mock serves both the JSON and the streaming scenarios. stdin closing means the parent is
// gone, and the mock exits with it. MOCK_TLS=1 serves https with the tests' certificate for
// localhost and 127.0.0.1 (test/fixtures; clients trust it through NODE_EXTRA_CA_CERTS); with
// MOCK_H2=1 as well, it offers HTTP/2 beside HTTP/1.1 in ALPN, as hosted providers do.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startMockProvider, type Behavior } from '../test/support/mock-provider.js';

const initial = process.argv[2] ?? process.env.MOCK_DEFAULT;
const fixtures = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
const tls = process.env.MOCK_TLS === '1'
  ? { cert: readFileSync(fixtures + 'localhost-cert.pem'), key: readFileSync(fixtures + 'localhost-key.pem') } : undefined;
const mock = await startMockProvider({ record: false, tls, h2: process.env.MOCK_H2 === '1' });
if (initial) mock.setDefault(JSON.parse(initial) as Behavior);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const command = JSON.parse(line) as { default?: Behavior };
  if (command.default) {
    mock.setDefault(command.default);
    process.stdout.write(JSON.stringify({ default: command.default.kind }) + '\n');
  }
});
lines.on('close', () => void mock.close().then(() => process.exit(0)));

process.stdout.write(JSON.stringify({ port: mock.port }) + '\n');
