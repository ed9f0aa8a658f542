import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Config } from './schema.js';
import { ConfigError } from './load.js';

/**
 * The 256-bit key that seals saved provider keys (DESIGN.md: AES-256-GCM, master key from the
 * environment or a key file created on first start with mode 0600). `GW_MASTER_KEY` (64 hex
 * characters) wins; else `byok.masterKeyFile`, else `master.key` beside the database.
 */
export function loadMasterKey(config: Readonly<Config>, env: NodeJS.ProcessEnv = process.env): Buffer {
  const fromEnv = env.GW_MASTER_KEY;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!/^[0-9a-fA-F]{64}$/.test(fromEnv)) throw new ConfigError('invalid GW_MASTER_KEY: expected 64 hex characters (32 bytes)');
    return Buffer.from(fromEnv, 'hex');
  }
  const file = config.byok.masterKeyFile ?? join(dirname(config.dbPath), 'master.key');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  }
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new ConfigError(`invalid master key file ${file}: expected 64 hex characters`);
  return Buffer.from(text, 'hex');
}
