/**
 * Codes a connection to a database or shared service raises when it cannot be reached or was
 * lost (Node's socket errors, the PostgreSQL driver's connection errors, and PostgreSQL's own
 * "connection exception" and "operator intervention" classes). A request that fails with one
 * is answered 503 unavailable (retry), not 500: nothing the client sent is at fault.
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED',
  '08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03',
]);

export function isUnreachable(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNREACHABLE.has(code);
}
