#!/usr/bin/env node
// Builds dist/ when any TypeScript source is newer than the last build, so `npm start`,
// `npm test` and the `gw` bin work straight after `npm install` without a separate step.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');

function newest(dir, pattern = /\.ts$/) {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p, pattern) : pattern.test(e.name) ? statSync(p).mtimeMs : 0);
  }
  return t;
}

const sourcesAt = Math.max(newest(join(root, 'src')), newest(join(root, 'test')), newest(join(root, 'bench')),
  statSync(join(root, 'tsconfig.json')).mtimeMs);
const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
if (sourcesAt > builtAt) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit', cwd: root });
  } catch {
    console.error('build failed: see the TypeScript errors above');
    process.exit(1);
  }
  writeFileSync(stamp, String(Date.now()));
}

// The dashboard (web/, built by Vite into dist/web), rebuilt when any of its sources is newer.
const webStamp = join(root, 'dist', 'web', 'index.html');
const webAt = Math.max(newest(join(root, 'web'), /\.(tsx?|css|html)$/), statSync(join(root, 'package-lock.json')).mtimeMs);
if (webAt > (existsSync(webStamp) ? statSync(webStamp).mtimeMs : 0)) {
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  try {
    execFileSync(process.execPath, [vite, 'build', join(root, 'web'), '--logLevel', 'warn'], { stdio: 'inherit', cwd: root });
  } catch {
    console.error('dashboard build failed: see the errors above');
    process.exit(1);
  }
}
