import type { GatewayProcess } from './gateway-process.js';

/** A signed-in browser: the gw_session cookie plus fetch helpers that send it same-origin. */
export interface Browser {
  cookie: string;
  email: string;
  get(path: string): Promise<Response>;
  send(method: string, path: string, body?: unknown, extraHeaders?: Record<string, string>): Promise<Response>;
}

/** Signs in through a one-time login link from `gw login-link`, as an operator would. */
export async function signIn(gw: GatewayProcess, email: string): Promise<Browser> {
  const { url } = await gw.cli('login-link', '--email', email, '--base-url', gw.url);
  const res = await fetch(url, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`login link answered ${res.status}: ${await res.text()}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0];
  if (!cookie.startsWith('gw_session=')) throw new Error(`no session cookie: ${setCookie}`);
  return browserWith(gw, cookie, email);
}

export function browserWith(gw: GatewayProcess, cookie: string, email = ''): Browser {
  return {
    cookie,
    email,
    get: (path) => fetch(gw.url + path, { headers: { cookie } }),
    send: (method, path, body, extra = {}) => fetch(gw.url + path, {
      method,
      headers: { cookie, origin: gw.url, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  };
}
