import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A real Prometheus server the test started, scraping one target every second. */
export interface PrometheusServer {
  /** http://127.0.0.1:port */
  url: string;
  /** GET /api/v1/<path>: its `data` when the status is success, else throws with Prometheus' error. */
  api<T = unknown>(path: string): Promise<T>;
  stop(): Promise<void>;
}

const INSTALL = 'run `sh scripts/install-servers.sh` (Debian\'s prometheus package)';

/**
 * Debian's prometheus on a free loopback port, its data in a temp folder, scraping `target`
 * (host:port) as job `gw` every second and evaluating `ruleFiles` every second.
 * Throws with the install command when it is missing.
 */
export async function startPrometheus(target: string, ruleFiles: string[]): Promise<PrometheusServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gw-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, [
    'global:',
    '  scrape_interval: 1s',
    '  evaluation_interval: 1s',
    `rule_files: [${ruleFiles.map((f) => JSON.stringify(f)).join(', ')}]`,
    'scrape_configs:',
    '  - job_name: gw',
    `    static_configs: [{ targets: [${JSON.stringify(target)}] }]`,
    '',
  ].join('\n'));
  const child: ChildProcess = spawn('prometheus', [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d) => { log += d; });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (e) => reject(new Error(`prometheus could not start (${e.message}): ${INSTALL}`)));
    child.once('exit', (code) => reject(new Error(`prometheus exited with ${code}:\n${log}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ready = await Promise.race([fetch(`${url}/-/ready`).then((r) => r.ok, () => false), failed]);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`prometheus was not ready on port ${port} within 20 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  failed.catch(() => {});
  process.once('exit', () => { child.kill('SIGKILL'); });
  return {
    url,
    async api<T>(path: string): Promise<T> {
      const body = await (await fetch(`${url}/api/v1/${path}`)).json() as { status: string; data: T; error?: string };
      if (body.status !== 'success') throw new Error(`prometheus: ${path}: ${body.error}`);
      return body.data;
    },
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
