// The billing and payment services in process, through their routes and the router, over SQLite
// and over PostgreSQL, and the loopback payment provider: roles, bounds, orgs kept apart, and one
// credit per order whichever report of its payment lands first.
import * as assert from 'uvu/assert';
import { createInjector, type InjectRequest } from '../../../src/http/inject.js';
import type { Role, Session } from '../../../src/domain/session.js';
import { loadConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/lib/logger.js';
import { ProxyDispatchers } from '../../../src/control/proxy-dispatchers.js';
import { PincodeLookup } from '../../../src/control/billing/pincode-lookup.js';
import { PaymentApi } from '../../../src/control/billing/payment-api.js';
import { PaymentService } from '../../../src/control/billing/payment-service.js';
import { BillingService, type DailyUsage } from '../../../src/control/billing/billing-service.js';
import { billingRoutes } from '../../../src/control/billing/billing-routes.js';
import { paymentWebhookRoutes } from '../../../src/control/billing/payment-webhook-routes.js';
import type { OrgStore } from '../../../src/domain/stores/org-store.js';
import { insertPromo, sqliteBillingStore } from '../../../src/store/billing.js';
import { sqliteOrgStore } from '../../../src/store/orgs.js';
import type { Pg } from '../../../src/store/postgres/pg-database.js';
import { postgresBillingStore } from '../../../src/store/postgres/pg-billing.js';
import { UsageRollup } from '../../../src/store/usage-reports.js';
import { PAY_KEY_ID, PAY_KEY_SECRET, PAY_WEBHOOK_SECRET, sign, startMockPayments, type MockPayments } from '../../support/payments-server.js';
import { eachBackend, type StoreBackend } from '../../support/store-backends.js';

const ORIGIN = 'http://gw.example';
const GOA = { name: 'Asha', line1: '1 Beach Rd', city: 'Panaji', state: 'Goa', pincode: '403001' };

/**
 * The org as the billing services read it (find: the balance), on PostgreSQL. Test-only until
 * the PostgreSQL OrgStore lands beside this store; then it is that store.
 */
const pgOrgs = (pg: Pg): OrgStore => ({
  find: async (id) => (await pg<{ id: string; name: string; personal: boolean; balanceMicros: number; fundedAt: number | null; createdAt: number; guardrails: string | null;
    responseCache: 'off' | 'on' | 'always' | null; promptCache: 'auto' | 'off' | null }[]>`
    SELECT id, name, personal = 1 AS personal, balance_micros AS "balanceMicros", funded_at AS "fundedAt", created_at AS "createdAt", guardrails,
      response_cache AS "responseCache", prompt_cache AS "promptCache"
    FROM orgs WHERE id = ${id}`)[0],
  defaultWorkspaceId: async () => { throw new Error('not read by billing'); },
  hasActiveWorkspace: async () => { throw new Error('not read by billing'); },
  rename: async () => { throw new Error('not read by billing'); },
  setGuardrails: async () => { throw new Error('not read by billing'); },
  setCacheSettings: async () => { throw new Error('not read by billing'); },
  ownerEmails: async () => [],
});

/** An operator's promo code, as `gw promo add` leaves it. */
async function seedPromo(be: StoreBackend, p: { code: string; kind: 'fixed' | 'percent'; value: number; maxRedemptions: number | null; now: number }) {
  if (be.db) {
    insertPromo(be.db, { code: p.code, kind: p.kind, value: p.value, expires_at: null, max_redemptions: p.maxRedemptions, created_at: p.now });
    return;
  }
  await be.pg!`INSERT INTO promo_codes (code, kind, value, expires_at, max_redemptions, created_at)
    VALUES (${p.code}, ${p.kind}, ${p.value}, NULL, ${p.maxRedemptions}, ${p.now})`;
}

eachBackend('billing', (test, be) => {
  let pay: MockPayments;
  let now = Date.UTC(2026, 5, 1, 6);
  const credited: string[] = [];
  const logged: string[] = [];
  const sessions = new Map<string, Session>();
  const insertOrg = (name: string) => be().org(name);

  function gateway(opts: { topups: boolean; smtp?: boolean }) {
    const config = loadConfig({
      env: {},
      overrides: {
        billing: {
          maxOrdersPerHour: 3, pincodeLookupUrl: pay.pincodeUrl,
          seller: { state: '29' },
          payments: opts.topups ? { apiBaseUrl: pay.url, keyId: PAY_KEY_ID, keySecret: PAY_KEY_SECRET, webhookSecret: PAY_WEBHOOK_SECRET } : {},
        },
        ...(opts.smtp ? { smtp: { host: '127.0.0.1', port: 2525 } } : {}),
      },
    });
    const outbound = new ProxyDispatchers(config.upstream);
    const p = config.billing.payments;
    const api = opts.topups ? new PaymentApi({ ...p, keyId: p.keyId!, keySecret: p.keySecret! }, outbound) : null;
    const clock = { now: () => now };
    const billing = be().pick(sqliteBillingStore, postgresBillingStore);
    const orgs = be().pick(sqliteOrgStore, pgOrgs);
    const payments = new PaymentService({ billing, orgs, api, clock, log: createLogger('warn', (line) => logged.push(line)), credited: (id) => credited.push(id) });
    const service = new BillingService({
      billing, orgs, payments, clock, config,
      // The 30-day usage on PostgreSQL is another store's; nothing here reads it.
      usage: be().pick<DailyUsage>((db) => new UsageRollup(db), () => ({ read: async () => ({ cells: () => [] }) })),
      pincodes: new PincodeLookup(config.billing.pincodeLookupUrl, outbound, 2_000),
    });
    const call = createInjector([...billingRoutes(service, payments), ...paymentWebhookRoutes(payments, () => {})], {
      log: createLogger('error'), allowedOrigins: new Set([ORIGIN]), sessions: (t) => sessions.get(t) ?? null,
    });
    return { payments, call };
  }

  function member(orgId: string, role: Role): Record<string, string> {
    const token = `${orgId}:${role}`;
    sessions.set(token, { hash: token, userId: `usr_${role}_${orgId}`, email: `${role}@${orgId}.example`, orgId, role, expiresAt: Infinity });
    return { cookie: `gw_session=${token}`, origin: ORIGIN };
  }

  const on = (call: (r: InjectRequest) => Promise<{ status: number; json<T = any>(): T; body: string; headers: Record<string, string | string[]> }>,
    headers: Record<string, string>) => ({
    get: (url: string) => call({ method: 'GET', url, headers }),
    post: (url: string, body: object) => call({ method: 'POST', url, headers, body }),
  });

  function webhook(call: (r: InjectRequest) => Promise<{ status: number; json<T = any>(): T }>, event: string, entity: Record<string, unknown>) {
    const raw = JSON.stringify({ entity: 'event', event, payload: { payment: { entity: { entity: 'payment', currency: 'INR', ...entity } } } });
    return call({ method: 'POST', url: '/webhooks/payments', headers: { 'x-payments-signature': sign(PAY_WEBHOOK_SECRET, raw) }, body: raw });
  }

  test.before(async () => {
    pay = await startMockPayments();
  });
  test.after(async () => {
    await pay.close();
  });

  test('billing is for owners; an address is checked field by field, its PIN against its state', async () => {
    const { call } = gateway({ topups: true });
    const { orgId } = await insertOrg('Roles');
    assert.is((await on(call, member(orgId, 'admin')).get('/me/billing')).status, 403);
    const owner = on(call, member(orgId, 'owner'));
    const bill = (await owner.get('/me/billing')).json();
    assert.equal([bill.balance_inr, bill.address, bill.topups.enabled, bill.topups.key_id], [0, null, true, PAY_KEY_ID]);
    const wrongPin = await owner.post('/me/billing/address', { ...GOA, pincode: '560001' });
    assert.is(wrongPin.status, 400);
    assert.is(wrongPin.json().error.code, 'bad_address');
    assert.match(wrongPin.json().error.message, /pincode/);
    const saved = await owner.post('/me/billing/address', { ...GOA, gstin: null });
    assert.equal(saved.json(), {
      name: 'Asha', line1: '1 Beach Rd', line2: null, city: 'Panaji', state: 'Goa', state_code: '30', pincode: '403001', gstin: null,
      updated_at: new Date(now).toISOString(),
    });
    assert.equal((await owner.get('/me/billing')).json().address, saved.json());
  });

  test('an order needs an address and whole rupees within bounds, and an org makes at most so many an hour', async () => {
    const { call } = gateway({ topups: true });
    const { orgId } = await insertOrg('Orders');
    const owner = on(call, member(orgId, 'owner'));
    assert.is((await owner.post('/me/billing/orders', { amount_inr: 100 })).json().error.code, 'address_required');
    await owner.post('/me/billing/address', GOA);
    const small = await owner.post('/me/billing/orders', { amount_inr: 99 });
    assert.is(small.status, 400);
    assert.match(small.json().error.message, /from 100 to 1000/);
    const made = (await owner.post('/me/billing/orders', { amount_inr: 100 })).json();
    // Goa is not the seller's Karnataka: IGST.
    assert.equal([made.amount_paise, made.tax.igst_inr, made.tax.cgst_inr, made.place_of_supply], [11_800, 18, 0, { state: 'Goa', state_code: '30' }]);
    assert.is(pay.orders.get(made.order_id)!.amount, 11_800);
    await owner.post('/me/billing/orders', { amount_inr: 100 });
    await owner.post('/me/billing/orders', { amount_inr: 100 });
    const fourth = await owner.post('/me/billing/orders', { amount_inr: 100 });
    assert.is(fourth.status, 429);
    assert.is(fourth.json().error.code, 'rate_limit_exceeded');
    now += 3_600_001;
    assert.is((await owner.post('/me/billing/orders', { amount_inr: 100 })).status, 200);
  });

  test('checkout, webhook and reconciler land in any order and credit an order once', async () => {
    const { call, payments } = gateway({ topups: true });
    const { orgId } = await insertOrg('Credits');
    const owner = on(call, member(orgId, 'owner'));
    await owner.post('/me/billing/address', GOA);
    credited.length = 0;

    // The checkout first, then the webhook and the reconciler.
    const a = (await owner.post('/me/billing/orders', { amount_inr: 100 })).json().order_id;
    const proofA = pay.pay(a);
    const verified = (await owner.post('/me/billing/verify', proofA)).json();
    assert.equal([verified.credited, verified.credit_inr, verified.balance_inr], [true, 100, 100]);
    const late = await webhook(call, 'payment.captured', { id: proofA.payment_id, order_id: a, amount: 11_800, method: 'upi' });
    assert.equal(late.json(), { status: 'already_credited' });

    // The webhook first, then the checkout.
    const b = (await owner.post('/me/billing/orders', { amount_inr: 200 })).json().order_id;
    const proofB = pay.pay(b);
    assert.equal((await webhook(call, 'payment.captured', { id: proofB.payment_id, order_id: b, amount: 23_600 })).json(), { status: 'credited' });
    const again = (await owner.post('/me/billing/verify', proofB)).json();
    assert.equal([again.credited, again.payment_id, again.balance_inr], [false, proofB.payment_id, 300]);

    assert.is(await payments.reconcile(), 0);
    assert.equal(credited, [a, b]);
    const bill = (await owner.get('/me/billing')).json();
    assert.is(bill.balance_inr, 300);
    assert.equal(bill.money_events.map((e: { kind: string }) => e.kind), ['payment', 'payment']);
    assert.equal(bill.orders.filter((o: { status: string }) => o.status === 'paid').length, 2);

    // Unpaid, then paid with a capture of another amount: never credited, even by reconciliation.
    const c = (await owner.post('/me/billing/orders', { amount_inr: 300 })).json().order_id;
    pay.pay(c, { status: 'failed' });
    pay.pay(c, { amount: 100 });
    assert.is(await payments.reconcile(), 0);
    assert.is((await owner.get('/me/billing')).json().balance_inr, 300);
    assert.ok(logged.some((l) => l.includes('payment amount differs from its order') && l.includes(c)));
    assert.equal((await webhook(call, 'payment.captured', { id: 'pay_x', order_id: 'order_elsewhere', amount: 1 })).json(),
      { status: 'ignored', detail: 'not an order of this gateway' });
  });

  test("another org's order cannot be verified, nor its receipt read; the owner's receipt is escaped HTML", async () => {
    const { call } = gateway({ topups: true });
    const mine = (await insertOrg('Mine')).orgId;
    const theirs = (await insertOrg('Theirs')).orgId;
    const owner = on(call, member(mine, 'owner'));
    const stranger = on(call, member(theirs, 'owner'));
    await owner.post('/me/billing/address', { ...GOA, name: '<b>Asha</b>' });
    const id = (await owner.post('/me/billing/orders', { amount_inr: 100 })).json().order_id;
    const proof = pay.pay(id);
    const refused = await stranger.post('/me/billing/verify', proof);
    assert.is(refused.status, 404);
    assert.equal(credited.includes(id), false);
    const forged = await owner.post('/me/billing/verify', { ...proof, signature: '0'.repeat(64) });
    assert.is(forged.status, 400);
    const done = (await owner.post('/me/billing/verify', proof)).json();
    assert.is((await stranger.get(done.receipt_url)).status, 404);
    const receipt = await owner.get(done.receipt_url);
    assert.is(receipt.status, 200);
    assert.is(receipt.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(receipt.body, /R\/2026-27\/\d{6}/);
    assert.match(receipt.body, /&lt;b&gt;Asha&lt;\/b&gt;/);
    assert.is((await owner.get('/me/billing/receipts/pay_unknown')).status, 404);
  });

  test('a promo is redeemed once per org; a bonus whose code was used up since the order is not paid', async () => {
    const { call } = gateway({ topups: true });
    await seedPromo(be(), { code: 'WELCOME', kind: 'fixed', value: 50_000_000, maxRedemptions: 1, now });
    const { orgId } = await insertOrg('Promos');
    const owner = on(call, member(orgId, 'owner'));
    await owner.post('/me/billing/address', GOA);
    const check = (await owner.post('/me/billing/promo/check', { code: ' WELCOME ', amount_inr: 100 })).json();
    assert.equal([check.code, check.kind, check.bonus_inr], ['WELCOME', 'fixed', 50]);
    const first = (await owner.post('/me/billing/orders', { amount_inr: 100, promo_code: 'WELCOME' })).json();
    const second = (await owner.post('/me/billing/orders', { amount_inr: 100, promo_code: 'WELCOME' })).json();
    assert.equal([first.bonus_inr, second.bonus_inr], [50, 50]);
    assert.is((await owner.post('/me/billing/verify', pay.pay(first.order_id))).json().bonus_inr, 50);
    assert.is((await owner.post('/me/billing/verify', pay.pay(second.order_id))).json().bonus_inr, 0);
    assert.is((await owner.get('/me/billing')).json().balance_inr, 250);
    assert.is((await owner.post('/me/billing/promo/check', { code: 'WELCOME' })).json().error.code, 'promo_invalid');
  });

  test('the low-balance threshold needs a mail relay; with one it is kept in micro-rupees and cleared with null', async () => {
    const { orgId } = await insertOrg('Thresholds');
    const without = on(gateway({ topups: true }).call, member(orgId, 'owner'));
    const refused = await without.post('/me/billing/settings', { low_balance_inr: 25.5 });
    assert.is(refused.json().error.code, 'unavailable');
    assert.equal((await without.post('/me/billing/settings', { low_balance_inr: null })).json(), { low_balance_inr: null });
    const relayed = on(gateway({ topups: true, smtp: true }).call, member(orgId, 'owner'));
    assert.equal((await relayed.post('/me/billing/settings', { low_balance_inr: 25.5 })).json(), { low_balance_inr: 25.5 });
    assert.is((await relayed.get('/me/billing')).json().low_balance_inr, 25.5);
  });

  test('with top-ups off, orders, verification, promos and the webhook answer 503 billing_disabled', async () => {
    const { call } = gateway({ topups: false });
    const { orgId } = await insertOrg('Off');
    const owner = on(call, member(orgId, 'owner'));
    assert.equal((await owner.get('/me/billing')).json().topups, { enabled: false, min_inr: 100, max_inr: 1000, gst_percent: 18, key_id: null, checkout_url: null });
    for (const r of [
      await owner.post('/me/billing/orders', { amount_inr: 100 }),
      await owner.post('/me/billing/verify', { order_id: 'o', payment_id: 'p', signature: 's' }),
      await owner.post('/me/billing/promo/check', { code: 'WELCOME' }),
      await webhook(call, 'payment.captured', { id: 'p', order_id: 'o', amount: 1 }),
    ]) {
      assert.is(r.status, 503);
      assert.is(r.json().error.code, 'billing_disabled');
    }
  });

});
