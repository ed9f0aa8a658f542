import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { errors } from '../errors/catalog.js';

/**
 * Parses a JSON request body and checks it against a compiled schema; every failure is
 * 400 bad_request naming the offending field (`Invalid 'messages.0.role': …`).
 */
export function parseJsonBody(raw: Buffer, check: TypeCheck<TSchema> | null): unknown {
  let v: unknown;
  try {
    v = JSON.parse(raw.toString('utf8'));
  } catch {
    throw errors.badRequest('Request body is not valid JSON');
  }
  if (check) checkBody(check, v);
  return v;
}

/** Throws 400 bad_request naming the first field that breaks the schema. */
export function checkBody(check: TypeCheck<TSchema>, v: unknown): void {
  if (check.Check(v)) return;
  const e = check.Errors(v).First();
  const field = e?.path ? e.path.slice(1).replace(/\//g, '.') : 'body';
  throw errors.badRequest(`Invalid '${field}': ${e?.message ?? 'invalid value'}`);
}
