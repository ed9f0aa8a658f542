import { errors } from '../errors/catalog.js';
import type { Db } from '../store/database.js';
import { activeKeyNameTaken, countActiveKeys } from '../store/keys.js';

/** Longest key name, in the API's schema and the CLI's check. */
export const KEY_NAME_MAX = 64;

/**
 * The rules a new key obeys (spec 7), in one place for every way a key is made: the API's
 * POST /me/keys and the operator's `gw key create` (which may override them with --force).
 * Call inside the write transaction that inserts the key, so two requests cannot both pass.
 */
export function checkNewKey(db: Db, orgId: string, name: string, maxActive: number, now: number): void {
  if (countActiveKeys(db, orgId, now) >= maxActive) {
    throw errors.rule('cap', `An organisation can have at most ${maxActive} active keys (beta); revoke one first`);
  }
  if (activeKeyNameTaken(db, orgId, name, now)) throw errors.rule('duplicate_key_name', `An active key named '${name}' already exists`);
}
