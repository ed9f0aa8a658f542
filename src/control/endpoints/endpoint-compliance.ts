import { fetch } from 'undici';
import type { ComplianceCheck, ComplianceReport } from '../../domain/stores/custom-endpoint-store.js';
import type { ProxyDispatchers } from '../proxy-dispatchers.js';
import { readBounded } from '../bounded-body.js';

/** Largest answer read from an endpoint under test. */
const MAX_BYTES = 1024 * 1024;

/**
 * Tests that a base URL speaks the OpenAI API the way the gateway relies on: `GET /models` lists
 * models, a chat completion answers with `choices[0].message` (and `usage`, else the gateway
 * will estimate it), and a stream is SSE ending in `[DONE]`. Each call is bounded in time and size.
 */
export async function testEndpoint(baseUrl: string, apiKey: string | null, dispatchers: ProxyDispatchers, timeoutMs: number,
  publicOnly: boolean): Promise<ComplianceReport> {
  const base = baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = { accept: 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
  const call = async (path: string, body?: unknown): Promise<{ status: number; type: string; text: string }> => {
    const url = base + path;
    const res = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs), dispatcher: dispatchers.for(url, publicOnly),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: (await readBounded(res, MAX_BYTES)).toString('utf8') };
  };

  const checks: ComplianceCheck[] = [];
  let models: string[] = [];
  try {
    const r = await call('/models');
    const ids = r.status === 200 ? (JSON.parse(r.text) as { data?: { id?: unknown }[] }).data?.map((m) => m?.id) : undefined;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string')) {
      checks.push({ name: 'models', ok: false, detail: `GET /models answered ${r.status} without a list of model ids` });
    } else {
      models = (ids as string[]).slice(0, 1_000);
      checks.push({ name: 'models', ok: true, detail: `${models.length} model(s)` });
    }
  } catch (e) {
    return { status: 'unreachable', models: [], checks: [{ name: 'models', ok: false, detail: `no answer: ${(e as Error).message}` }] };
  }
  const model = models[0] ?? 'default';
  const ask = { model, messages: [{ role: 'user', content: 'Reply with the word OK.' }], max_tokens: 5 };
  try {
    const r = await call('/chat/completions', ask);
    const doc = r.status === 200 ? JSON.parse(r.text) as { choices?: { message?: { content?: unknown } }[]; usage?: unknown } : null;
    const message = doc?.choices?.[0]?.message;
    if (!message || typeof message !== 'object') checks.push({ name: 'chat', ok: false, detail: `chat completion answered ${r.status} without choices[0].message` });
    else checks.push({ name: 'chat', ok: true, detail: doc?.usage ? 'answer and usage' : 'answer without usage (the gateway estimates it)' });
  } catch (e) {
    checks.push({ name: 'chat', ok: false, detail: `chat completion failed: ${(e as Error).message}` });
  }
  try {
    const r = await call('/chat/completions', { ...ask, stream: true, stream_options: { include_usage: true } });
    const sse = r.type.startsWith('text/event-stream');
    const done = /(^|\n)data: \[DONE\]/.test(r.text);
    checks.push(r.status === 200 && sse && done ? { name: 'stream', ok: true, detail: 'SSE ending in [DONE]' }
      : { name: 'stream', ok: false, detail: `stream answered ${r.status} ${r.type || 'without a content type'}${sse && !done ? ' without [DONE]' : ''}` });
  } catch (e) {
    checks.push({ name: 'stream', ok: false, detail: `stream failed: ${(e as Error).message}` });
  }
  return { status: checks.every((c) => c.ok) ? 'compliant' : 'non_compliant', models, checks };
}
