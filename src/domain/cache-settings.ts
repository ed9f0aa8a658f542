/**
 * How a request uses the exact-match response cache (docs/cache.md): `on` for answers that can
 * repeat (embeddings, temperature-0 generations), `always` for any, `off` for none.
 */
export type ResponseCacheMode = 'off' | 'on' | 'always';

/** Whether the gateway adds prompt-cache markers on long stable prefixes (docs/cache.md). */
export type PromptCacheSetting = 'auto' | 'off';

