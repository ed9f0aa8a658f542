import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { errors } from '../errors/catalog.js';
import { jsonNestsDeeperThan } from '../lib/json-depth.js';

/**
 * Deepest nesting of arrays and objects a request body may have (serde_json's default). Real
 * bodies, tool schemas included, stay far below; thousands of levels overflowed the stack in
 * whatever walked the value next.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Parses a JSON request body and checks it against a compiled schema; every failure is
 * 400 bad_request naming the offending field (`Invalid 'messages.0.role': …`).
 */
export function parseJsonBody(raw: Buffer, check: TypeCheck<TSchema> | null): unknown {
  const v = parseJsonText(raw.toString('utf8'));
  if (check) checkBody(check, v);
  return v;
}

/**
 * An inference body: JSON text that must be an object and pass `check` (400 bad_request
 * otherwise, naming the field). Every inbound format's parser starts here.
 */
export function parseJsonObject(text: string, check: TypeCheck<TSchema>): Record<string, unknown> {
  const v = parseJsonText(text);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw errors.badRequest('Request body must be a JSON object');
  checkBody(check, v);
  return v as Record<string, unknown>;
}

/** JSON.parse with the bad_request envelope on failure, nesting depth included. */
export function parseJsonText(text: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw errors.badRequest('Request body is not valid JSON');
  }
  if (jsonNestsDeeperThan(v, MAX_JSON_DEPTH)) throw errors.badRequest(`Request body nests more than ${MAX_JSON_DEPTH} levels deep`);
  return v;
}

/** Throws 400 bad_request naming the first field that breaks the schema. */
export function checkBody(check: TypeCheck<TSchema>, v: unknown): void {
  if (check.Check(v)) return;
  const e = check.Errors(v).First();
  const field = e?.path ? e.path.slice(1).replace(/\//g, '.') : 'body';
  throw errors.badRequest(`Invalid '${field}': ${e?.message ?? 'invalid value'}`);
}
