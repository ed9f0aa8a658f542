import { defineConfig, type Plugin } from 'vite';
import preact from '@preact/preset-vite';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const outDir = fileURLToPath(new URL('../dist/web', import.meta.url));

/**
 * Writes file.br and file.gz beside each text file of the build, so the gateway serves the
 * compressed forms without making them at start (brotli at quality 11 took 400 ms for this bundle).
 */
function precompress(): Plugin {
  return {
    name: 'gw-precompress',
    apply: 'build',
    closeBundle() {
      const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json|txt)$/.test(file)) continue;
        const raw = readFileSync(file);
        if (raw.length <= 512) continue;
        writeFileSync(file + '.br', brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }));
        writeFileSync(file + '.gz', gzipSync(raw, { level: 9 }));
      }
    },
  };
}

// The dashboard is built into dist/web, which the gateway serves at / (src/http/dashboard.ts).
// Hashed file names under /assets/ let the gateway cache them for a year; index.html is not cached.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [preact(), precompress()],
  base: '/',
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // The polyfill would be an inline script, which the Content-Security-Policy refuses.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
