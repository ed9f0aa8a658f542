import { ApiError } from '../../lib/api';

export interface Usage { prompt_tokens: number; completion_tokens: number; total_tokens: number }

/** What the stream reports as it goes; times are ms since the request was sent. */
export interface StreamHandlers {
  /** The answer's headers arrived (status 200): its request id and the provider that serves it. */
  onStart(h: { requestId: string | null; provider: string | null; at: number }): void;
  /** A piece of the answer; `first` on the first piece of text (time to first token). */
  onText(text: string, at: number, first: boolean): void;
  onUsage(u: Usage): void;
}

export interface ChatRequest {
  key: string;
  model: string;
  prompt: string;
  maxTokens: number | null;
  signal: AbortSignal;
}

/** An error envelope {error:{code,message}} as an ApiError, so the page shows it in words. */
function envelopeError(status: number, doc: unknown, retryAfter: string | null): ApiError {
  const e = (doc as { error?: { code?: string; message?: string } } | null)?.error;
  return new ApiError(status, e?.code ?? `http_${status}`, e?.message ?? '', retryAfter ? Number(retryAfter) : null);
}

/**
 * POST /v1/chat/completions with stream: true and the caller's key, read with fetch and a
 * ReadableStream: the server-sent events are split into lines and each `data:` line parsed as a
 * chunk, until [DONE]. Errors before the stream are the usual envelope; an error after the
 * headers arrives as a `data: {"error":…}` event (the gateway's house rule) and is thrown alike.
 */
export async function streamChat(req: ChatRequest, on: StreamHandlers): Promise<void> {
  const t0 = performance.now();
  const body: Record<string, unknown> = {
    model: req.model,
    messages: [{ role: 'user', content: req.prompt }],
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.maxTokens !== null) body.max_tokens = req.maxTokens;
  const res = await fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${req.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    // The key is the credential here, not the dashboard's session.
    credentials: 'omit',
    signal: req.signal,
  });
  if (!res.ok) {
    let doc: unknown = null;
    try {
      doc = await res.json();
    } catch {
      // Not JSON: the status alone says it.
    }
    throw envelopeError(res.status, doc, res.headers.get('retry-after'));
  }
  on.onStart({ requestId: res.headers.get('x-request-id'), provider: res.headers.get('x-gw-provider'), at: performance.now() - t0 });
  if (!res.body) throw new Error('The answer had no body.');

  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  let first = true;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).replace(/\r$/, '');
      buffered = buffered.slice(nl + 1);
      if (!line.startsWith('data:')) continue; // blank separators, comments, event names
      const data = line.slice(5).trim();
      if (data === '[DONE]') return;
      let chunk: { choices?: { delta?: { content?: string | null } }[]; usage?: Usage | null; error?: unknown };
      try {
        chunk = JSON.parse(data);
      } catch {
        continue;
      }
      if (chunk.error) throw envelopeError(502, chunk, null);
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) {
        on.onText(text, performance.now() - t0, first);
        first = false;
      }
      if (chunk.usage) on.onUsage(chunk.usage);
    }
  }
}
