import type { Detector } from './detector.js';

/**
 * API keys and secrets: the key shapes providers and platforms issue, PEM private keys, and a
 * value assigned to a secret-sounding name (`api_key=`, `secret:`) that looks generated: 16 or
 * more characters, letters and digits mixed, at least 3 bits of entropy a character ("changeme"
 * and "aaaaaaaaaaaaaaaa1" are left alone, a 32-character token is not).
 */
export const SECRET: Detector = {
  id: 'secret',
  patterns: [
    // OpenAI and Anthropic (sk-, sk-proj-, sk-ant-), this gateway's own keys (gw-, gw-trial-).
    { re: /(?<![A-Za-z0-9_-])(?:sk|gw)-[A-Za-z0-9_-]{20,}/g },
    // AWS access key ids (long-lived AKIA, temporary ASIA).
    { re: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])/g },
    // GitHub tokens (personal, OAuth, user-to-server, server-to-server, refresh; fine-grained).
    { re: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
    // Slack tokens.
    { re: /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}/g },
    // A PEM private key, armour to armour (bounded, so an unterminated header costs a fixed read).
    { re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]{1,16384}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----/g },
    // name = value, name: "value", "name": "value" for secret-sounding names; only the value is the finding.
    {
      re: /(?:secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|password|passwd)["']?\s{0,4}[:=]\s{0,4}["']?([A-Za-z0-9/+_.~=-]{16,512})/gi,
      group: 1,
      valid: (m) => /\d/.test(m) && /[A-Za-z]/.test(m) && entropyBits(m) >= 3,
    },
  ],
};

/** Shannon entropy per character (bits). */
export function entropyBits(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}
