import { Type } from '@sinclair/typebox';

/**
 * A key's or an org's cache settings (docs/cache.md) as /me/keys/:id and /me/org take and show
 * them: one of the values, or null for none (a key then follows its org, an org the config). The
 * schema refuses any other value with 400 bad_request naming the member.
 */
export const ResponseCacheSetting = Type.Union([Type.Literal('off'), Type.Literal('on'), Type.Literal('always'), Type.Null()], {
  description: 'The exact-match response cache mode of requests that send no x-gw-cache header (docs/cache.md): ' +
    'off, on (embeddings and temperature-0 generations) or always; null: not set (a key follows its org, an org the config)',
});

export const PromptCacheSetting = Type.Union([Type.Literal('auto'), Type.Literal('off'), Type.Null()], {
  description: 'Whether the gateway marks long stable prefixes for Anthropic\'s prompt cache when the body sends no `cache` member ' +
    '(docs/cache.md): auto or off; null: not set (a key follows its org, an org the config)',
});
