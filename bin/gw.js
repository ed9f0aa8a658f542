#!/usr/bin/env -S node --initial-old-space-size=128
// The `gw` operator CLI. Builds dist/ first when the sources changed, then runs it. The V8 flag
// is `npm start`'s (package.json; why: docs/configuration.md, *The V8 heap flag*): `gw serve` runs the same.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(process.execPath, [join(root, 'scripts', 'ensure-build.js')], { stdio: 'inherit' });
await import(join(root, 'dist', 'src', 'main.js'));
