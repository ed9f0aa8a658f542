import { join } from 'node:path';
import { PACKAGE_ROOT } from './config/load.js';

const DEFAULT_DB = join(PACKAGE_ROOT, 'data', 'gateway.db');

/**
 * What a new operator does next, logged when the gateway starts on a database without
 * organisations: the CLI commands (naming this database unless it is the one `npx gw` finds by
 * itself) and where the API and, once it is built, the dashboard are.
 */
export function firstStartSteps(dbPath: string, baseUrl: string): { message: string; fields: Record<string, string> } {
  const db = dbPath === DEFAULT_DB ? '' : ` --db ${/^[\w./:-]+$/.test(dbPath) ? dbPath : `'${dbPath.replaceAll("'", "'\\''")}'`}`;
  const createOrg = `npx gw${db} org create acme --credit 500`;
  const createKey = `npx gw${db} key create --org <org id> --name laptop`;
  const signIn = `npx gw${db} login-link --email you@example.com --base-url ${baseUrl}`;
  const message = `first start: no organisations yet. Next, in another terminal in ${PACKAGE_ROOT.replace(/\/$/, '')}: ` +
    `\`${createOrg}\` (prints the org id), then \`${createKey}\` (prints a gw- key once); ` +
    `clients use ${baseUrl}/v1 with that key. The dashboard is at ${baseUrl}/: \`${signIn}\` prints a one-time sign-in link ` +
    '(with your own email; the first sign-in creates your org).';
  return { message, fields: { create_org: createOrg, create_key: createKey, sign_in: signIn, api: `${baseUrl}/v1`, dashboard: `${baseUrl}/` } };
}
