/** What a scrubbed secret reads as. */
export const REDACTED = '[redacted]';

/**
 * The second line of defence, for credentials the caller of scrubSecrets did not name: a bearer
 * or basic credential, and the key shapes providers issue (OpenAI/Anthropic/DeepSeek `sk-`,
 * Groq `gsk_`, xAI `xai-`, Fireworks `fw_`, Perplexity `pplx-`, NVIDIA `nvapi-`, Hugging Face
 * `hf_`, Replicate `r8_`, Google `AIza…`, and the gateway's own `gw-`). The word boundary keeps
 * words such as "task-force" whole.
 */
const KEY_SHAPES = /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}|\b(?:sk|pk|rk|gsk|xai|fw|pplx|nvapi|hf|r8|gw)[-_][A-Za-z0-9._~+/=-]{8,}|\bAIza[0-9A-Za-z_-]{20,}/g;

/** A secret is also found by this many leading characters, for an upstream that echoes it cut short. */
const PREFIX = 12;

/**
 * Removes from upstream text every secret the gateway sent with the call, whole or cut short,
 * then anything shaped like a credential. Only error text passes through here: the success
 * path never pays for it.
 */
export function scrubSecrets(text: string, secret: string | null): string {
  let out = text;
  if (secret !== null && secret.length >= 4) {
    const probe = secret.length > PREFIX ? secret.slice(0, PREFIX) : secret;
    for (let at = out.indexOf(probe); at >= 0; at = out.indexOf(probe, at + REDACTED.length)) {
      let end = at + probe.length;
      while (end < out.length && end - at < secret.length && out[end] === secret[end - at]) end++;
      out = out.slice(0, at) + REDACTED + out.slice(end);
    }
  }
  return out.replace(KEY_SHAPES, REDACTED);
}
