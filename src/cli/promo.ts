import type { OperatorStore, PromoRow } from '../domain/stores/operator-store.js';
import { systemClock } from '../lib/clock.js';
import { formatInr, microsToInr } from '../lib/money.js';
import { inrFlag, parseFlags, positiveInt, UsageError } from './args.js';

type Out = (human: string, json: unknown) => void;

const CODE_RE = /^[A-Za-z0-9_-]{3,32}$/;

const view = (p: PromoRow) => ({
  code: p.code, kind: p.kind,
  bonus_inr: p.kind === 'fixed' ? microsToInr(p.value) : null, percent: p.kind === 'percent' ? p.value : null,
  expires_at: p.expires_at === null ? null : new Date(p.expires_at).toISOString(),
  max_redemptions: p.max_redemptions, redemptions: p.redemptions, disabled: p.disabled_at !== null,
});

const describe = (p: PromoRow): string => {
  const what = p.kind === 'fixed' ? `₹${formatInr(p.value)} bonus` : `${p.value}% bonus`;
  const until = p.expires_at === null ? 'no expiry' : `until ${new Date(p.expires_at).toISOString()}`;
  const used = `${p.redemptions}/${p.max_redemptions ?? '∞'} redeemed`;
  return `${p.code}\t${what}\t${until}\t${used}${p.disabled_at !== null ? '\tdisabled' : ''}`;
};

/** gw promo create|list|disable: the operator's promo codes (DESIGN.md: one redemption per org). */
export async function promoCommand(ops: OperatorStore, sub: string | undefined, argv: string[], out: Out): Promise<number> {
  if (sub === 'create') {
    const { values, positionals } = parseFlags(argv, {
      'bonus-inr': { type: 'string' }, percent: { type: 'string' }, expires: { type: 'string' }, 'max-redemptions': { type: 'string' },
    });
    const [code] = positionals;
    if (!code || !CODE_RE.test(code)) throw new UsageError('promo create needs a CODE of 3 to 32 letters, digits, - or _');
    if ((values['bonus-inr'] === undefined) === (values.percent === undefined)) throw new UsageError('give one of --bonus-inr INR or --percent 1-100');
    const kind = values.percent !== undefined ? 'percent' : 'fixed';
    const value = kind === 'percent' ? positiveInt(values.percent, '--percent', 100)! : inrFlag(values['bonus-inr']!, '--bonus-inr');
    if (value <= 0) throw new UsageError('--bonus-inr must be above zero');
    let expiresAt: number | null = null;
    if (values.expires !== undefined) {
      // A bare date means the end of that day in IST.
      expiresAt = /^\d{4}-\d{2}-\d{2}$/.test(values.expires) ? Date.parse(`${values.expires}T23:59:59.999+05:30`) : Date.parse(values.expires);
      if (Number.isNaN(expiresAt)) throw new UsageError(`--expires '${values.expires}' is not a date (YYYY-MM-DD, or an ISO time)`);
    }
    const row = { code, kind, value, expires_at: expiresAt, max_redemptions: positiveInt(values['max-redemptions'], '--max-redemptions') ?? null, created_at: systemClock.now() } as const;
    if (!await ops.insertPromo(row)) throw new UsageError(`promo code '${code}' exists already`);
    const saved = (await ops.listPromos()).find((p) => p.code === code)!;
    out(describe(saved), view(saved));
    return 0;
  }
  if (sub === 'list') {
    parseFlags(argv, {});
    const all = await ops.listPromos();
    out(all.length ? all.map(describe).join('\n') : 'no promo codes', all.map(view));
    return 0;
  }
  if (sub === 'disable') {
    const { positionals } = parseFlags(argv, {});
    const [code] = positionals;
    if (!code) throw new UsageError('promo disable needs CODE');
    if (!(await ops.listPromos()).some((p) => p.code.toLowerCase() === code.toLowerCase())) throw new UsageError(`no promo code '${code}'`);
    const changed = await ops.disablePromo(code, systemClock.now());
    out(changed ? `disabled ${code}` : `${code} was already disabled`, { code, disabled: true });
    return 0;
  }
  throw new UsageError('promo needs create, list or disable');
}
