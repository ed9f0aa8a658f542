import { loadConfig, ConfigError } from '../config/load.js';
import { startGateway, StartRefused } from '../gateway.js';
import { GATEWAY_VERSION } from '../http/routes.js';
import { GatewayError } from '../errors/gateway-error.js';
import { checkNewKey, KEY_NAME_MAX } from '../control/keys/key-rules.js';
import { serveHolder } from '../store/serve-lock.js';
import { createLogger } from '../lib/logger.js';
import { offsetClock, systemClock } from '../lib/clock.js';
import { openDatabase } from '../store/database.js';
import { openPostgres, type Pg } from '../store/postgres/pg-database.js';
import { copySqliteToPostgres } from '../store/postgres/pg-import.js';
import { redactUrl } from '../lib/redact-url.js';
import { existsSync } from 'node:fs';
import { orgIsFunded } from '../domain/org-funding.js';
import { openOperatorStores, type OperatorStores } from './operator-stores.js';
import { tail, tailLedger } from './tail.js';
import { postgresUsageTailReader } from '../store/postgres/pg-usage.js';
import { promoCommand } from './promo.js';
import { formatInr, microsToInr } from '../lib/money.js';
import { TRIAL_DAILY, TRIAL_RPM } from '../limits/limits-gate.js';
import { isEmail } from '../control/sign-in/login-links.js';
import { SignInService } from '../control/sign-in/sign-in-service.js';
import type { Change } from '../cluster/change-bus.js';
import { inrFlag, parseFlags, positiveInt, UsageError } from './args.js';

const HELP = `gw: operator CLI of the inference gateway

Usage: gw [--config FILE] [--db PATH] [--json] <command>
       gw --version

  serve                                   run the gateway (same as npm start)
  org create NAME [--credit INR]          create an org; prints its id
  org credit ORG_ID INR [--note TEXT]     grant credit (recorded as a money event)
  org show ORG_ID                         balance, tier, active keys, recent money events and top-ups
  key create --org ORG_ID --name NAME     mint an API key; prints it once
        [--rpm N] [--daily N] [--budget-inr INR] [--expires-days 1-365]
        [--force]                         past the API's rules (active-key cap, unique names)
  key revoke KEY_ID                       revoke a key (a running gateway drops it within a second)
  key limits KEY_ID [--rpm N|none] [--daily N|none] [--budget-inr INR|none]
  promo create CODE (--bonus-inr INR | --percent 1-100) [--expires DATE] [--max-redemptions N]
                                          a top-up promo code; one redemption per org
  promo list | promo disable CODE
  login-link --email EMAIL [--base-url URL]
                                          one-time sign-in URL for the dashboard (valid for minutes)
  tail [--org ID] [--key ID] [--model ID] [-n N] [--no-follow]
                                          follow the usage ledger like tail -f (--json: JSON lines)
  migrate --to postgres://…               copy this SQLite database into an empty PostgreSQL one
                                          (stop the gateway first; docs/scale-out.md)

Global: --config (or GW_CONFIG) and --db (or GW_DB) choose the database; --json prints JSON.
Without them the database is data/gateway.db in the gateway's folder, the one \`npm start\` serves.`;

const SUBCOMMANDS: Readonly<Record<string, string>> = {
  org: 'org create | org credit | org show',
  key: 'key create | key revoke | key limits',
  promo: 'promo create | promo list | promo disable',
};

/** The part of HELP about one command group, for `gw org` and the like. */
function helpFor(group: string): string {
  const lines = HELP.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  ${group} `));
  const end = lines.findIndex((l, i) => i > start && /^ {2}\S/.test(l) && !l.startsWith(`  ${group} `));
  return `gw ${group}: ${SUBCOMMANDS[group]}\n\n${lines.slice(start, end).join('\n')}`;
}

interface Globals {
  config?: string;
  db?: string;
  json: boolean;
  rest: string[];
}

function splitGlobals(argv: string[]): Globals {
  const g: Globals = { json: false, rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') g.json = true;
    else if (a === '--config' || a === '--db') {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      if (a === '--config') g.config = v;
      else g.db = v;
    } else if (a.startsWith('--config=')) g.config = a.slice(9);
    else if (a.startsWith('--db=')) g.db = a.slice(5);
    else g.rest.push(a);
  }
  return g;
}

export async function runCli(argv: string[]): Promise<number> {
  let g: Globals;
  try {
    g = splitGlobals(argv);
  } catch (e) {
    console.error(`gw: ${(e as Error).message}`);
    return 2;
  }
  const [cmd, sub, ...rest] = g.rest;
  const out = (human: string, json: unknown) => console.log(g.json ? JSON.stringify(json) : human);
  try {
    if (cmd === '--version' || cmd === '-v' || cmd === 'version') {
      console.log(g.json ? JSON.stringify({ version: GATEWAY_VERSION }) : `gw ${GATEWAY_VERSION}`);
      return 0;
    }
    const config = loadConfig({ file: g.config, overrides: g.db ? { dbPath: g.db } : {} });
    if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') {
      console.log(HELP);
      return 0;
    }
    if (cmd in SUBCOMMANDS && (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h')) {
      console.log(helpFor(cmd));
      return 0;
    }
    if (cmd === 'serve') return await serve(config, sub === undefined ? [] : [sub, ...rest]);
    if (cmd === 'migrate') return await migrateCommand(config.dbPath, g.rest.slice(1), g.json, out);
    if (config.store.url) {
      console.error(`database: ${redactUrl(config.store.url)}`);
      if (cmd === 'tail') return await tailPostgres(config.store.url, g.rest.slice(1), g.json);
    } else announceDatabase(config.dbPath);
    if (cmd === 'tail') {
      const ro = openDatabase(config.dbPath, { readonly: true });
      try {
        return await tail(ro, g.rest.slice(1), g.json);
      } finally {
        ro.close();
      }
    }
    const st = await openOperatorStores(config);
    try {
      if (cmd === 'org' && sub === 'create') return await orgCreate(st, rest, out);
      if (cmd === 'org' && sub === 'credit') return await orgCredit(st, rest, out);
      if (cmd === 'org' && sub === 'show') return await orgShow(st, rest, out);
      if (cmd === 'key' && sub === 'create') return await keyCreate(st, config, rest, out);
      if (cmd === 'key' && sub === 'revoke') return await keyRevoke(st, config, rest, out);
      if (cmd === 'key' && sub === 'limits') return await keyLimits(st, config, rest, out);
      if (cmd === 'promo') return await promoCommand(st.ops, sub, rest, out);
      if (cmd === 'login-link') return await loginLink(st, config, g.rest.slice(1), out);
    } finally {
      await st.close();
    }
    throw new UsageError(`unknown command '${[cmd, sub].filter(Boolean).join(' ')}'\n\n${HELP}`);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      console.error(`gw: ${e.message}`);
      return 2;
    }
    if (e instanceof StartRefused) {
      console.error(`gw: ${e.message}`);
      return 1;
    }
    if (e instanceof GatewayError) {
      console.error(`gw: ${e.code}: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

type Out = (human: string, json: unknown) => void;

/**
 * Says on stderr (never in --json stdout) which database a command works on, and warns when no
 * gateway serves it: a CLI run from another folder or with another config would otherwise
 * write quietly to a database nobody serves.
 */
function announceDatabase(dbPath: string): void {
  const holder = serveHolder(dbPath);
  if (holder) {
    console.error(`database: ${dbPath} (served by the gateway with pid ${holder.pid} on ${holder.host}:${holder.port})`);
    return;
  }
  console.error(`database: ${dbPath}`);
  console.error('warning: no running gateway serves this database; a gateway started on it later sees these changes. ' +
    'If one is running, point this command at its database with --config or --db (or GW_CONFIG, GW_DB).');
}

/** `gw tail` on PostgreSQL: the same lines, read from the shared ledger. */
async function tailPostgres(url: string, argv: string[], json: boolean): Promise<number> {
  const sql = await openPostgres(url, { max: 1 });
  try {
    return await tailLedger((f) => postgresUsageTailReader(sql, f), argv, json);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** `gw migrate --to URL`: the SQLite database, whole, into an empty PostgreSQL (schema created first). */
async function migrateCommand(dbPath: string, argv: string[], json: boolean, out: Out): Promise<number> {
  const { values } = parseFlags(argv, { to: { type: 'string' } });
  const url = values.to ?? process.env.GW_STORE;
  if (!url || !/^postgres(ql)?:\/\//.test(url)) throw new UsageError('migrate needs --to postgres://… (or GW_STORE)');
  const holder = serveHolder(dbPath);
  if (holder) throw new UsageError(`the gateway with pid ${holder.pid} serves ${dbPath}: stop it first, so no request is written after the copy`);
  if (!existsSync(dbPath)) throw new UsageError(`no database at ${dbPath} (--db or GW_DB names it)`);
  const db = openDatabase(dbPath);
  let pg: Pg | null = null;
  try {
    pg = await openPostgres(url, { max: 1 });
    console.error(`copying ${dbPath} into ${redactUrl(url)}`);
    const copied = await copySqliteToPostgres(db, pg, (t) => { if (!json) console.error(`  ${t.table}: ${t.rows} rows`); });
    const rows = copied.reduce((n, t) => n + t.rows, 0);
    out(`copied ${rows} rows in ${copied.length} tables; start the gateways with GW_STORE set to this database`, { tables: copied, rows });
    return 0;
  } catch (e) {
    console.error(`gw: migrate failed, nothing was written: ${(e as Error).message}`);
    return 1;
  } finally {
    db.close();
    await pg?.end({ timeout: 1 });
  }
}

async function serve(config: ReturnType<typeof loadConfig>, argv: string[]): Promise<number> {
  parseFlags(argv, {});
  const log = createLogger(config.logLevel);
  // GW_CLOCK_START (ISO time or epoch ms) shifts the gateway's clock: for testing day and month boundaries.
  const start = process.env.GW_CLOCK_START;
  const at = start ? (/^\d+$/.test(start) ? Number(start) : Date.parse(start)) : NaN;
  if (start && Number.isNaN(at)) throw new UsageError(`GW_CLOCK_START '${start}' is not a time`);
  const gw = await startGateway(config, { log, clock: start ? offsetClock(at) : undefined });
  await new Promise<void>((resolve) => {
    const onSignal = (sig: string) => {
      log.info('stopping', { signal: sig });
      gw.stop().then(resolve, (e) => {
        log.error('stop failed', { err: String(e) });
        resolve();
      });
    };
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    process.once('SIGINT', () => onSignal('SIGINT'));
  });
  log.info('stopped');
  return 0;
}

async function orgCreate(st: OperatorStores, argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parseFlags(argv, { credit: { type: 'string' } });
  const name = positionals.join(' ').trim();
  if (!name) throw new UsageError('org create needs a NAME');
  const now = systemClock.now();
  const micros = values.credit !== undefined ? inrFlag(values.credit, '--credit') : 0;
  const { orgId, workspaceId } = await st.ops.createOrg(name, now);
  const balance = micros > 0 ? (await st.ops.credit(orgId, micros, 'initial credit (gw org create)', now)).balanceMicros : 0;
  out(orgId, { id: orgId, name, workspace_id: workspaceId, balance_inr: microsToInr(balance) });
  return 0;
}

async function orgCredit(st: OperatorStores, argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parseFlags(argv, { note: { type: 'string' } });
  const [orgId, amount] = positionals;
  if (!orgId || !amount) throw new UsageError('org credit needs ORG_ID and an amount in INR');
  if (!await st.orgs.find(orgId)) throw new UsageError(`no org '${orgId}'`);
  const micros = inrFlag(amount, 'amount');
  if (micros <= 0) throw new UsageError('amount must be above zero');
  const { balanceMicros } = await st.ops.credit(orgId, micros, values.note ?? 'operator credit (gw org credit)', systemClock.now());
  out(`credited ₹${formatInr(micros)}; balance ₹${formatInr(balanceMicros)}`, { org_id: orgId, credited_inr: microsToInr(micros), balance_inr: microsToInr(balanceMicros) });
  return 0;
}

async function orgShow(st: OperatorStores, argv: string[], out: Out): Promise<number> {
  const { positionals } = parseFlags(argv, {});
  const [orgId] = positionals;
  if (!orgId) throw new UsageError('org show needs ORG_ID');
  const org = await st.orgs.find(orgId);
  if (!org) throw new UsageError(`no org '${orgId}'`);
  const keys = await st.keys.listActive(org.id, systemClock.now());
  const events = await st.billing.listMoneyEvents(org.id, 10);
  const orders = await st.billing.listOrders(org.id, 10);
  const low = await st.billing.lowBalance(org.id);
  const funded = orgIsFunded(org);
  const when = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const human = [
    `${org.name} (${org.id})`,
    `balance ₹${formatInr(org.balanceMicros)}; new keys are ${funded ? 'standard' : 'trial'}${low === null ? '' : `; low-balance mail below ₹${formatInr(low)}`}`,
    `active keys: ${keys.length === 0 ? 'none' : keys.map((k) => `${k.prefix}… ${k.name} (${k.tier})`).join(', ')}`,
    'money events:', ...(events.length ? events.map((e) => `  ${when(e.at)}  ${e.kind.padEnd(15)} ₹${formatInr(e.amountMicros)}${e.note ? `  ${e.note}` : ''}`) : ['  none']),
    'top-up orders:', ...(orders.length ? orders.map((o) => `  ${when(o.createdAt)}  ${o.id}  ${o.status.padEnd(7)} ₹${formatInr(o.creditMicros)} + GST = ₹${formatInr(o.totalMicros)}${o.paymentId ? `  ${o.paymentId} via ${o.paidVia}` : ''}`) : ['  none']),
  ].join('\n');
  out(human, {
    id: org.id, name: org.name, balance_inr: microsToInr(org.balanceMicros), tier: funded ? 'standard' : 'trial',
    low_balance_inr: microsToInr(low), active_keys: keys.map((k) => ({ id: k.id, prefix: k.prefix, name: k.name, tier: k.tier })),
    money_events: events.map((e) => ({ at: when(e.at), kind: e.kind, amount_inr: microsToInr(e.amountMicros), note: e.note })),
    orders: orders.map((o) => ({
      id: o.id, status: o.status, created_at: when(o.createdAt), credit_inr: microsToInr(o.creditMicros), total_inr: microsToInr(o.totalMicros),
      payment_id: o.paymentId, paid_via: o.paidVia, paid_at: when(o.paidAt),
    })),
  });
  return 0;
}

async function keyCreate(st: OperatorStores, config: ReturnType<typeof loadConfig>, argv: string[], out: Out): Promise<number> {
  const { values } = parseFlags(argv, {
    org: { type: 'string' }, name: { type: 'string' }, rpm: { type: 'string' }, daily: { type: 'string' },
    'budget-inr': { type: 'string' }, 'expires-days': { type: 'string' }, force: { type: 'boolean' },
  });
  if (!values.org) throw new UsageError('key create needs --org ORG_ID');
  const name = values.name?.trim();
  if (!name) throw new UsageError('key create needs --name NAME (names tell keys apart when one must be revoked)');
  if (name.length > KEY_NAME_MAX) throw new UsageError(`--name must be at most ${KEY_NAME_MAX} characters`);
  const org = await st.orgs.find(values.org);
  if (!org) throw new UsageError(`no org '${values.org}'`);
  const workspaceId = await st.orgs.defaultWorkspaceId(org.id);
  const tier = orgIsFunded(org) ? 'standard' : 'trial';
  const expiresDays = positiveInt(values['expires-days'], '--expires-days', 365);
  const rpm = positiveInt(values.rpm, '--rpm');
  const daily = positiveInt(values.daily, '--daily');
  if (tier === 'trial') checkTrialCeiling(rpm, daily, values['budget-inr']);
  const budget = values['budget-inr'] !== undefined ? inrFlag(values['budget-inr'], '--budget-inr') : null;
  const now = systemClock.now();
  // The API's rules and their transaction (the key service's), unless the operator forces past them.
  const created = await st.keys.create({
    orgId: org.id, workspaceId, name, tier,
    rpmLimit: rpm ?? null,
    dailyLimit: daily ?? null,
    monthlyBudgetMicros: budget,
    expiresAt: expiresDays ? now + expiresDays * 86_400_000 : null,
  }, now, values.force ? undefined : (facts) => checkNewKey(facts, name, config.orgs.maxActiveKeysPerOrg));
  out(`${created.key}\n(id ${created.id}, tier ${tier}; the key is shown only now: store it safely)`,
    { id: created.id, key: created.key, prefix: created.prefix, tier, name, org_id: org.id });
  return 0;
}

async function loginLink(st: OperatorStores, config: ReturnType<typeof loadConfig>, argv: string[], out: Out): Promise<number> {
  const { values } = parseFlags(argv, { email: { type: 'string' }, 'base-url': { type: 'string' } });
  if (!isEmail(values.email)) throw new UsageError('login-link needs --email with an email address');
  const base = (values['base-url'] ?? config.baseUrl ?? `http://127.0.0.1:${config.port}`).replace(/\/+$/, '');
  // Only the link's part of the sign-in service: no provider, no session.
  const { url, expiresAt } = await new SignInService({
    store: st.signIn, clock: systemClock, providers: new Map(), baseUrl: () => base,
    signupCreditMicros: 0, sessionTtlMs: 0, loginLinkTtlMs: config.auth.loginLinkTtlMinutes * 60_000,
  }).createLoginLink(values.email);
  out(`${url}\n(one use, valid until ${new Date(expiresAt).toISOString()})`, { url, expires_at: new Date(expiresAt).toISOString() });
  return 0;
}

/** Trial keys stay within 60/min and 200/day and have no budget (the API's trial_ceiling rule). */
function checkTrialCeiling(rpm: number | undefined, daily: number | undefined, budget: string | undefined): void {
  if ((rpm ?? 0) > TRIAL_RPM || (daily ?? 0) > TRIAL_DAILY) {
    throw new UsageError(`trial_ceiling: trial keys are capped at ${TRIAL_RPM} per minute and ${TRIAL_DAILY} per day; credit the org for standard keys`);
  }
  if (budget !== undefined) throw new UsageError('monthly budgets apply to standard keys; trial keys are free');
}

/**
 * With several instances (redis.url), tells them at once over the change bus; the change feed,
 * which every instance polls, carries it anyway within changePollMs.
 */
async function tellInstances(config: ReturnType<typeof loadConfig>, change: Change): Promise<void> {
  if (!config.redis.url) return;
  const { ChangeBus } = await import('../cluster/change-bus.js');
  await ChangeBus.announce(config.redis.url, [change]).catch((e: unknown) => {
    console.error(`warning: the instances were not told at once (${(e as Error).message}); they see the change within changePollMs`);
  });
}

async function keyRevoke(st: OperatorStores, config: ReturnType<typeof loadConfig>, argv: string[], out: Out): Promise<number> {
  const { positionals } = parseFlags(argv, {});
  const [id] = positionals;
  if (!id) throw new UsageError('key revoke needs KEY_ID');
  if (!await st.keys.find(id)) throw new UsageError(`no key '${id}'`);
  const revoked = await st.keys.revoke(id, systemClock.now());
  if (revoked) await tellInstances(config, { kind: 'key', id, change: 'revoked' });
  out(revoked ? `revoked ${id}` : `${id} was already revoked`, { id, revoked: true });
  return 0;
}

async function keyLimits(st: OperatorStores, config: ReturnType<typeof loadConfig>, argv: string[], out: Out): Promise<number> {
  const { values, positionals } = parseFlags(argv, { rpm: { type: 'string' }, daily: { type: 'string' }, 'budget-inr': { type: 'string' } });
  const [id] = positionals;
  if (!id) throw new UsageError('key limits needs KEY_ID');
  const before = await st.keys.find(id);
  if (!before) throw new UsageError(`no key '${id}'`);
  const orNull = <T>(v: string | undefined, f: (s: string) => T): T | null | undefined => (v === undefined ? undefined : v === 'none' ? null : f(v));
  const patch = {
    rpmLimit: orNull(values.rpm, (v) => positiveInt(v, '--rpm')!),
    dailyLimit: orNull(values.daily, (v) => positiveInt(v, '--daily')!),
    monthlyBudgetMicros: orNull(values['budget-inr'], (v) => inrFlag(v, '--budget-inr')),
  };
  if (before.tier === 'trial') checkTrialCeiling(patch.rpmLimit ?? undefined, patch.dailyLimit ?? undefined, patch.monthlyBudgetMicros ? 'set' : undefined);
  if (await st.keys.updateLimits(id, patch, systemClock.now())) await tellInstances(config, { kind: 'key', id, change: 'changed' });
  const k = (await st.keys.find(id))!;
  out(`key ${id}: rpm ${k.rpmLimit ?? 'none'}, daily ${k.dailyLimit ?? 'none'}, budget ${k.monthlyBudgetMicros === null ? 'none' : '₹' + formatInr(k.monthlyBudgetMicros)}`,
    { id, rpm_limit: k.rpmLimit, daily_limit: k.dailyLimit, monthly_budget_inr: microsToInr(k.monthlyBudgetMicros) });
  return 0;
}
