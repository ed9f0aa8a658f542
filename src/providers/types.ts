/** What a provider adapter produces for one upstream call. */
export interface UpstreamCall {
  /** Path appended to the provider's base URL, e.g. `/chat/completions`. */
  path: string;
  body: string;
}

export type Endpoint = 'chat' | 'embeddings';

export interface AdapterCaps {
  /** The provider accepts `stream_options.include_usage`. */
  streamOptions: boolean;
}

/**
 * A pure translation between the OpenAI wire format the gateway speaks and one provider's.
 * It owns the payload it is given (the caller does not reuse it) and knows nothing of keys,
 * billing or limits.
 */
export interface ProviderAdapter {
  buildCall(endpoint: Endpoint, payload: Record<string, unknown>, upstreamModel: string, caps: AdapterCaps): UpstreamCall;
  authHeaders(apiKey: string): Record<string, string>;
}

/** An upstream's answer as the data plane consumes it, whatever the transport. */
export interface UpstreamResponse {
  status: number;
  contentType: string;
  body: AsyncIterable<Buffer>;
  /** Stops reading and releases the connection. */
  cancel(): void;
}
