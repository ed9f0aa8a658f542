// A large ledger for one org, written straight into the usage table in one transaction (as a
// restored backup or an imported history would arrive), for the usage pages' scale tests.
import Database from 'better-sqlite3';

const DAY = 86_400_000;
export const SEED_MODELS = ['llama-3.3-70b-instruct', 'gpt-4o-mini', 'sarvam-m', 'claude-3-5-haiku', 'gemma-2-9b-it', 'mixtral-8x7b', 'qwen-2.5-72b', 'deepseek-v3'];
export const SEED_PROVIDERS = ['groq', 'together', 'openai', 'anthropic', 'sarvam'];

export interface SeedSpec {
  orgId: string;
  /** Keys of the org to spread the rows over (their workspace is read from api_keys). */
  keyIds: string[];
  rows: number;
  /** The rows' times run evenly from now - days to now. */
  days: number;
  now: number;
  /** Model and provider names to use (default SEED_MODELS, SEED_PROVIDERS); the first are the commonest. */
  models?: readonly string[];
  providers?: readonly string[];
}

/**
 * Writes `rows` usage rows, oldest first (ids grow with time, as the ledger writer's do): 3 % fail
 * outright (502), 5 % fail over once (a 500 then a 200 on the next provider), the rest are served
 * first time. Deterministic. Returns the number of rows and the time it took.
 */
export function seedUsage(dbPath: string, s: SeedSpec): { rows: number; ms: number } {
  const t0 = performance.now();
  let written = 0;
  const db = new Database(dbPath);
  db.pragma('busy_timeout = 5000');
  try {
    const ws = db.prepare('SELECT workspace_id FROM api_keys WHERE id = ?').pluck();
    const keys = s.keyIds.map((id) => ({ id, ws: ws.get(id) as string }));
    const ins = db.prepare(`INSERT INTO usage (at, request_id, org_id, workspace_id, key_id, endpoint, model, provider, route, attempt, status,
      error_code, prompt_tokens, completion_tokens, cost_micros, latency_ms, ttfb_ms, streamed, byok, billable, cached_tokens)
      VALUES (?, ?, ?, ?, ?, 'chat', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`);
    const models = s.models ?? SEED_MODELS;
    const providers = s.providers ?? SEED_PROVIDERS;
    let seed = 42;
    const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
    const start = s.now - s.days * DAY;
    db.transaction(() => {
      for (let n = 0; written < s.rows; n++) {
        const at = start + Math.floor((written / s.rows) * s.days * DAY);
        const key = keys[Math.floor(rand() ** 1.5 * keys.length)];
        const model = models[Math.floor(rand() ** 2 * models.length)];
        const p0 = providers[n % providers.length];
        const r = rand();
        const rid = `seed_${n.toString(36)}`;
        const streamed = n % 3 === 0 ? 1 : 0;
        if (r < 0.03) {
          ins.run(at, rid, s.orgId, key.ws, key.id, model, p0, `${p0}:x`, 0, 502, 'upstream_error', 0, 0, 0, 300, null, streamed, 0, 0);
          written++;
          continue;
        }
        let attempt = 0;
        if (r < 0.08) {
          ins.run(at - 200, rid, s.orgId, key.ws, key.id, model, p0, `${p0}:x`, 0, 500, 'upstream_error', 0, 0, 0, 200, 190, streamed, 0, 0);
          written++;
          attempt = 1;
          if (written === s.rows) break;
        }
        const p = providers[(n + attempt) % providers.length];
        const prompt = 20 + Math.floor(rand() * 2000);
        const completion = 5 + Math.floor(rand() * 800);
        ins.run(at, rid, s.orgId, key.ws, key.id, model, p, `${p}:x`, attempt, 200, null, prompt, completion, prompt * 52 + completion * 70,
          400 + rand() * 900, 90, streamed, 1, n % 7 === 0 ? Math.floor(prompt / 2) : 0);
        written++;
      }
    })();
  } finally {
    db.close();
  }
  return { rows: written, ms: performance.now() - t0 };
}
