// nginx as a reverse proxy in front of the mock: a reference for what the fastest widely used
// proxy, written in C, does on this machine with the same two loopback hops. One worker, one
// process, keep-alive upstream connections, nothing buffered, no access log. Optional: the
// bench reports it as skipped when nginx is not installed (Debian package nginx-light).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { readRssMiB, type ChildServer } from './child-server.js';

const CANDIDATES = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];

export function nginxBinary(): string | null {
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.end();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** `connections`: most connections the worker holds, both sides counted (each proxied stream takes two). */
export async function startNginx(dir: string, upstreamOrigin: string, connections = 4096): Promise<ChildServer> {
  const binary = nginxBinary();
  if (binary === null) throw new Error('nginx is not installed (Debian package nginx-light)');
  const port = await freePort();
  const url = new URL(upstreamOrigin);
  const upstream = url.host;
  // An https upstream: TLS per upstream connection, sessions reused, the certificate not checked.
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  for (const d of ['body', 'proxy']) mkdirSync(join(dir, d), { recursive: true });
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, `worker_processes 1;
worker_rlimit_nofile ${connections + 64};
master_process off;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections ${connections}; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  upstream mock { server ${upstream}; keepalive 128; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${scheme}://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
`);
  const child = spawn(binary, ['-c', conf, '-p', dir], { stdio: 'ignore' });
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    if (await accepts(port)) {
      return {
        name: 'nginx',
        pid: child.pid!,
        port,
        origin: `http://127.0.0.1:${port}`,
        send: () => {},
        waitForLine: () => Promise.reject(new Error('nginx prints nothing')),
        rssMiB: () => readRssMiB(child.pid!),
        stop: async () => {
          process.off('exit', kill);
          if (child.exitCode === null) child.kill('SIGKILL');
          await exited;
        },
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8').trim().slice(-300) : '';
  throw new Error(`nginx did not start${log ? `: ${log}` : ''}`);
}
