import type { AttributeValue, Span } from './span.js';

// OTLP/HTTP's JSON encoding of a span, written by hand: the shape is fixed and small, and
// JSON.stringify over the span's object graph (an object per attribute and per value) cost ~55k
// instructions a request with traces on, most of the traced path's cost (bench:instructions,
// gateway-traced). Only string values that need escaping go through JSON.stringify.

/** Characters a JSON string may hold as they are (printable ASCII but `"` and `\`). */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A JSON string literal. */
export function quote(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

function value(v: AttributeValue): string {
  if (typeof v === 'string') return `{"stringValue":${quote(v)}}`;
  if (typeof v === 'boolean') return v ? '{"boolValue":true}' : '{"boolValue":false}';
  return Number.isInteger(v) ? `{"intValue":"${v}"}` : `{"doubleValue":${v}}`;
}

/** OTLP attributes (`[{key, value}]`); null values are left out. Keys are the gateway's own names. */
export function attributesJson(a: Record<string, AttributeValue | null>): string {
  let out = '';
  for (const key in a) {
    const v = a[key];
    if (v === null || v === undefined) continue;
    out += `${out === '' ? '' : ','}{"key":"${key}","value":${value(v)}}`;
  }
  return `[${out}]`;
}

/** One span as an element of scopeSpans[].spans. */
export function spanJson(s: Span): string {
  const parent = s.parentSpanId === null ? '' : `"parentSpanId":"${s.parentSpanId}",`;
  const status = s.statusMessage === undefined ? `{"code":${s.status}}` : `{"code":${s.status},"message":${quote(s.statusMessage)}}`;
  return `{"traceId":"${s.traceId}","spanId":"${s.spanId}",${parent}"name":${quote(s.name)},"kind":${s.kind},` +
    `"startTimeUnixNano":"${s.startNs}","endTimeUnixNano":"${s.endNs}","attributes":${attributesJson(s.attributes)},"status":${status}}`;
}
