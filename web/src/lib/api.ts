import { humanMessage } from './messages';

/** An error answer of the gateway, in the spec's envelope: clients branch on code. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, readonly detail: string, readonly retryAfter: number | null) {
    super(humanMessage(code, detail, status));
    this.name = 'ApiError';
  }
}

type Listener = () => void;
const signedOut = new Set<Listener>();
/** Called when any call answers 401 no_session: the session has ended (expired, signed out elsewhere). */
export function onSignedOut(fn: Listener): () => void {
  signedOut.add(fn);
  return () => signedOut.delete(fn);
}

async function errorOf(res: Response): Promise<ApiError> {
  let code = 'http_' + res.status;
  let detail = res.statusText;
  try {
    const doc = await res.json() as { error?: { code?: string; message?: string } };
    if (doc.error) {
      code = doc.error.code ?? code;
      detail = doc.error.message ?? detail;
    }
  } catch {
    // Not JSON (a proxy's error page): the status says enough.
  }
  const retry = res.headers.get('retry-after');
  return new ApiError(res.status, code, detail, retry ? Number(retry) : null);
}

/**
 * One call on the gateway's public API, same-origin with the session cookie. Writes send JSON;
 * the browser adds Origin, which the gateway checks on every cookie-authenticated write.
 */
export async function call<T>(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...(init.headers as Record<string, string> | undefined) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    ...init, method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    const err = await errorOf(res);
    if (err.code === 'no_session') for (const fn of signedOut) fn();
    throw err;
  }
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  return (type.includes('json') ? await res.json() : await res.text()) as T;
}

export const api = {
  get: <T>(path: string, init?: RequestInit) => call<T>('GET', path, undefined, init),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => call<T>('PUT', path, body ?? {}),
  patch: <T>(path: string, body?: unknown) => call<T>('PATCH', path, body ?? {}),
  del: <T>(path: string) => call<T>('DELETE', path),
};

/** A path segment, escaped (model ids carry slashes, slugs and ids come from the server). */
export const seg = (s: string): string => encodeURIComponent(s);
