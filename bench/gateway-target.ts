// Starts the real gateway the way an operator would: CLI to create an org and a key in a fresh
// database, then `serve` with a config file pointing the `openai` provider at the mock.
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startChild, type ChildServer } from './child-server.js';

const run = promisify(execFile);

export interface GatewayTarget {
  server: ChildServer;
  apiKey: string;
  /** The gateway's SQLite file (its ledger: `usage` rows with queue_ms). */
  dbPath: string;
}

// The CLI may log before its result, so take the last JSON object line that has the field.
function jsonField(stdout: string, field: string, what: string): string {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const value = (JSON.parse(line) as Record<string, unknown>)[field];
      if (typeof value === 'string' || typeof value === 'number') return String(value);
    } catch {
      // not a JSON line
    }
  }
  throw new Error(`${what} printed no JSON "${field}": ${stdout.slice(0, 300)}`);
}

async function cli(root: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(process.execPath, ['dist/src/main.js', ...args], { cwd: root, timeout: 20_000 });
    return stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`\`gw ${args.join(' ')}\` failed: ${(e.stderr || e.message).trim().slice(0, 400)}`);
  }
}

// The gateway logs `{"msg":"listening",…,"port":N}`; the port may sit anywhere in the line.
function listeningPort(line: string): number | undefined {
  if (!line.includes('"msg":"listening"')) return undefined;
  const m = /"port":(\d+)/.exec(line);
  return m ? Number(m[1]) : undefined;
}

export interface GatewayStartOptions {
  /** Node flags for the gateway process (`--cpu-prof`, `--perf-basic-prof`), after `serveFlags`. */
  nodeArgs?: readonly string[];
  /** In place of SERVE_NODE_FLAGS (what those flags are worth: heap-after-idle.bench.ts). */
  serveFlags?: readonly string[];
  /** A command the gateway runs under (see SpawnOptions.wrap). */
  wrap?: readonly string[];
  timeoutMs?: number;
  /** The anthropic provider's base URL (the translated-path scenarios); absent, it is not configured. */
  anthropicUrl?: string;
  /** `limits` settings beside the lifted `gatewayRpm` (a higher `publicRpmPerIp` for a bench that polls /health). */
  limits?: Record<string, number>;
  /** false: metrics.enabled false (what collecting metrics costs). */
  metrics?: boolean;
  /** The gateway's environment (NODE_EXTRA_CA_CERTS for a mock over TLS); default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Traces on, posted to this OTLP/HTTP collector (tracing.otlpUrl); absent, traces are off as by default. */
  otlpUrl?: string;
  /** With otlpUrl: tracing.captureContent. */
  captureContent?: boolean;
}

/**
 * The V8 flags `npm start` and `gw serve` run the gateway with (package.json, bin/gw.js; a test
 * holds the three together): the bench measures the gateway as it ships.
 */
export const SERVE_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=128'];

export async function startGateway(root: string, tmpDir: string, mockUrl: string, o: GatewayStartOptions = {}): Promise<GatewayTarget> {
  if (!existsSync(join(root, 'dist/src/main.js'))) throw new Error('dist/src/main.js is not built');
  const dbPath = join(tmpDir, 'gw.db');
  const org = jsonField(await cli(root, ['--db', dbPath, 'org', 'create', 'bench', '--credit', '100000', '--json']), 'id', 'org create');
  const apiKey = jsonField(await cli(root, ['--db', dbPath, 'key', 'create', '--org', org, '--name', 'bench', '--json']), 'key', 'key create');

  const configPath = join(tmpDir, 'gateway.json');
  writeFileSync(configPath, JSON.stringify({
    host: '127.0.0.1',
    port: 0,
    dbPath,
    // groq serves the renamed-model stream scenario (instructions bench); the others use openai.
    providers: {
      openai: { baseUrl: mockUrl, apiKey: 'sk-bench' }, groq: { baseUrl: mockUrl, apiKey: 'sk-bench' },
      ...(o.anthropicUrl ? { anthropic: { baseUrl: o.anthropicUrl, apiKey: 'sk-ant-bench' } } : {}),
    },
    limits: { gatewayRpm: 100_000_000, ...o.limits },
    // BENCH_GW_METRICS=0: the same gateway with metrics off, to count what collecting them costs.
    ...(process.env.BENCH_GW_METRICS === '0' || o.metrics === false ? { metrics: { enabled: false } } : {}),
    ...(o.otlpUrl === undefined ? {} : { tracing: { otlpUrl: o.otlpUrl, captureContent: o.captureContent === true } }),
  }, null, 2));

  const server = await startChild('gateway', {
    args: [...(o.serveFlags ?? SERVE_NODE_FLAGS), ...(o.nodeArgs ?? []), 'dist/src/main.js', 'serve', '--config', configPath],
    cwd: root,
    portFrom: listeningPort,
    timeoutMs: o.timeoutMs ?? 20_000,
    wrap: o.wrap,
    env: o.env,
  });
  return { server, apiKey, dbPath };
}
