// Child-process entry: an Anthropic Messages API upstream for the translated-path scenarios
// (chat completions in, Anthropic out). Whole answers and streams of STREAM_CHUNKS text deltas,
// as the OpenAI-shaped mock sends STREAM_CHUNKS chunks. stdin closing means the parent is gone.
import { startMockAnthropic } from '../test/support/mock-anthropic.js';
import { STREAM_CHUNKS } from './payloads.js';

const deltas = Array.from({ length: STREAM_CHUNKS }, (_, i) => `token${i} `);
// One write per stream, as bench/mock-server.ts's OpenAI-shaped streams: the translated and the
// passed-through stream then reach the gateway in as many pieces, and differ by the translation.
const mock = await startMockAnthropic({ record: false, oneWrite: true });
mock.setDefault({ kind: 'text', text: deltas.join(''), deltas });
process.stdin.on('data', () => {});
process.stdin.on('end', () => void mock.close().then(() => process.exit(0)));
process.stdout.write(JSON.stringify({ port: Number(new URL(mock.url).port) }) + '\n');
