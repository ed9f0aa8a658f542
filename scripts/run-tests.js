#!/usr/bin/env node
// Runs every built test file (dist/test/**/*.test.js) in its own process, so each file's
// servers and state are isolated, and ends with the plain line "N passed, N failed".
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const testRoot = join(root, 'dist', 'test');
const filter = process.argv[2];
const FILE_TIMEOUT_MS = 180_000;

function find(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...find(p));
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

function runFile(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => { out += `\n(timed out after ${FILE_TIMEOUT_MS} ms)\n`; child.kill('SIGKILL'); }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const num = (label) => Number((out.match(new RegExp(`${label}:\\s+(\\d+)`)) ?? [])[1] ?? NaN);
      const total = num('Total');
      const passed = num('Passed');
      const skipped = num('Skipped') || 0;
      if (Number.isNaN(total) || Number.isNaN(passed)) resolve({ passed: 0, failed: 1, skipped: 0, code, out });
      else resolve({ passed, failed: Math.max(total - passed - skipped, code === 0 ? 0 : 1), skipped, code, out });
    });
  });
}

const files = find(testRoot).filter((f) => !filter || f.includes(filter));
let passed = 0;
let failed = 0;
let skipped = 0;
const started = Date.now();
for (const f of files) {
  const t0 = Date.now();
  const r = await runFile(f);
  passed += r.passed;
  failed += r.failed;
  skipped += r.skipped;
  const name = relative(testRoot, f);
  console.log(`${r.failed ? 'FAIL' : 'ok  '} ${name}  (${r.passed} passed, ${r.failed} failed, ${Date.now() - t0} ms)`);
  if (r.failed || process.env.TEST_VERBOSE) console.log(r.out.split('\n').map((l) => '    ' + l).join('\n'));
}
console.log(`\n${files.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || files.length === 0 ? 1 : 0);
