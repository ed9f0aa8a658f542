/**
 * Gemini's function parameters and response schemas take a subset of OpenAPI 3.0's Schema
 * (generativelanguage v1beta `Schema`), and the API answers 400 INVALID_ARGUMENT to any field
 * outside it ("Unknown name \"additionalProperties\""), which JSON Schema from zod, pydantic or
 * the OpenAI SDK's strict mode always carries. So a schema is rebuilt from the fields Gemini
 * knows: the others (`additionalProperties`, `$schema`, `strict`, `exclusiveMinimum`…) are left
 * out, local `$ref`s are inlined, and the JSON Schema spellings Gemini lacks are rewritten
 * (`type: ["string", "null"]` → `nullable`, `const` → a one-value `enum`, `oneOf` → `anyOf`).
 */
const KEPT = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'minProperties', 'maxProperties',
  'minLength', 'maxLength', 'pattern', 'example', 'default', 'minimum', 'maximum', 'propertyOrdering', 'required',
]);

/** Past this depth a schema is cut (a `$ref` cycle would otherwise never end). */
const MAX_DEPTH = 32;

type Json = Record<string, unknown>;

export function geminiSchema(schema: unknown): Json {
  const root = isObject(schema) ? schema : {};
  const defs = { ...(isObject(root.definitions) ? root.definitions : {}), ...(isObject(root.$defs) ? root.$defs : {}) };
  return clean(root, defs, 0);
}

function clean(s: Json, defs: Json, depth: number): Json {
  if (depth > MAX_DEPTH) return {};
  if (typeof s.$ref === 'string') {
    const target = defs[s.$ref.replace(/^#\/(\$defs|definitions)\//, '')];
    // Sibling keywords (a description beside the $ref) override the definition's, as JSON Schema 2019 reads them.
    const { $ref: _ref, ...siblings } = s;
    return clean({ ...(isObject(target) ? target : {}), ...siblings }, defs, depth + 1);
  }
  const out: Json = {};
  for (const k of Object.keys(s)) if (KEPT.has(k)) out[k] = s[k];
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t) => t !== 'null');
    if (types.length < s.type.length) out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else {
      delete out.type;
      if (types.length > 1) out.anyOf = types.map((t) => ({ type: t }));
    }
  }
  if (s.const !== undefined && out.enum === undefined) out.enum = [s.const];
  // Gemini's enum is a list of strings (with `format: enum` implied for strings).
  if (Array.isArray(out.enum)) {
    const values = out.enum.filter((v) => v !== null);
    if (values.length < out.enum.length) out.nullable = true;
    out.enum = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    if (out.type === undefined || out.type === 'integer' || out.type === 'number' || out.type === 'boolean') out.type = 'string';
  }
  if (isObject(s.properties)) {
    const props: Json = {};
    for (const [name, p] of Object.entries(s.properties)) props[name] = isObject(p) ? clean(p, defs, depth + 1) : {};
    out.properties = props;
  }
  if (isObject(s.items)) out.items = clean(s.items, defs, depth + 1);
  const union = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : null;
  if (union !== null) out.anyOf = unionOf(union, out, defs, depth);
  if (Array.isArray(s.allOf)) Object.assign(out, mergeAll(s.allOf, defs, depth));
  if (Array.isArray(out.anyOf) && out.anyOf.length === 1) {
    Object.assign(out, out.anyOf[0] as Json);
    delete out.anyOf;
  }
  return out;
}

/** `anyOf: [X, {type: "null"}]`, zod's and pydantic's optional field, is X made nullable. */
function unionOf(list: unknown[], out: Json, defs: Json, depth: number): Json[] {
  const kept: Json[] = [];
  for (const item of list) {
    if (!isObject(item)) continue;
    if (item.type === 'null') out.nullable = true;
    else kept.push(clean(item, defs, depth + 1));
  }
  return kept;
}

/** `allOf` (pydantic wraps a described `$ref` in one) merged into one schema, properties and required lists joined. */
function mergeAll(list: unknown[], defs: Json, depth: number): Json {
  const merged: Json = {};
  for (const item of list) {
    if (!isObject(item)) continue;
    const c = clean(item, defs, depth + 1);
    const props = { ...(merged.properties as Json | undefined), ...(c.properties as Json | undefined) };
    const required = [...((merged.required as string[] | undefined) ?? []), ...((c.required as string[] | undefined) ?? [])];
    Object.assign(merged, c);
    if (Object.keys(props).length > 0) merged.properties = props;
    if (required.length > 0) merged.required = required;
  }
  return merged;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
