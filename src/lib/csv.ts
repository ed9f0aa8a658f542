/**
 * CSV as RFC 4180 writes it: fields separated by commas, records ended by CRLF, a field with a
 * comma, quote, CR or LF quoted, its quotes doubled. A text field a spreadsheet would take for a
 * formula (starting with = + - @, or a tab or CR that some strip first) gets a leading
 * apostrophe, so an exported model name or request id can never run as one (OWASP, CSV injection).
 * Numbers and booleans are written as they are: a negative number stays a number.
 */
export type CsvValue = string | number | boolean | null;

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(v: CsvValue): string {
  if (v === null) return '';
  if (typeof v !== 'string') return String(v);
  const text = FORMULA_START.test(v) ? `'${v}` : v;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRecord(values: readonly CsvValue[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : ',') + csvField(values[i]);
  return line + '\r\n';
}
