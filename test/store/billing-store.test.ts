// The billing store's races, over SQLite and over PostgreSQL: reports of one payment landing at
// once on two gateway instances credit it once; receipt numbers stay gap-free when many orders are
// paid at once; a promo's cap and its one redemption per org hold under concurrent credits; a
// code is one code in any case. On PostgreSQL the second instance is a second connection pool.
import * as assert from 'uvu/assert';
import { bonusStands } from '../../src/control/billing/billing-rules.js';
import type { BillingStore, PaidVia } from '../../src/domain/stores/billing-store.js';
import { newId } from '../../src/lib/ids.js';
import { sqliteBillingStore } from '../../src/store/billing.js';
import { changeFeedReader } from '../../src/store/change-log.js';
import { postgresBillingStore } from '../../src/store/postgres/pg-billing.js';
import { postgresChangeFeedReader } from '../../src/store/postgres/pg-change-feed.js';
import { connectPostgres, type Pg } from '../../src/store/postgres/pg-database.js';
import { eachBackend } from '../support/store-backends.js';
import { exec, rows } from '../support/seed-sql.js';

const NOW = Date.UTC(2026, 5, 1, 6);
const ADDRESS = { name: 'Asha', line1: '1 Beach Rd', line2: null, city: 'Panaji', stateCode: '30', pincode: '403001', gstin: null };

eachBackend('billing store', (test, be) => {
  let one: BillingStore;
  let two: BillingStore;
  let otherPool: Pg | null = null;

  test.before(() => {
    one = be().pick(sqliteBillingStore, postgresBillingStore);
    two = be().pick(sqliteBillingStore, (pg) => {
      const o = pg.options;
      otherPool = connectPostgres(`postgres://${o.user}@${o.host[0]}:${o.port[0]}/${o.database}`, { max: 4 });
      return postgresBillingStore(otherPool);
    });
  });
  test.after(async () => {
    await (otherPool as Pg | null)?.end({ timeout: 1 });
  });

  /** An unpaid order of ₹100 (₹118 charged), with a promo bonus of ₹50 if a code is given. */
  async function order(orgId: string, promoCode: string | null = null): Promise<string> {
    const id = newId('order');
    await one.createOrder({
      id, orgId, createdBy: null, creditMicros: 100_000_000, cgstMicros: 0, sgstMicros: 0, igstMicros: 18_000_000, totalMicros: 118_000_000,
      placeOfSupply: '30', billTo: ADDRESS, promoCode, promoBonusMicros: promoCode === null ? 0 : 50_000_000, createdAt: NOW,
    });
    return id;
  }
  const promo = (code: string, maxRedemptions: number | null) => exec(be(), `INSERT INTO promo_codes
    (code, kind, value, expires_at, max_redemptions, created_at) VALUES (?, 'fixed', 50000000, NULL, ?, ?)`, code, maxRedemptions, NOW);
  const balance = async (orgId: string) => (await rows<{ b: number }>(be(), 'SELECT balance_micros AS b FROM orgs WHERE id = ?', orgId))[0].b;

  test('one payment reported at once by checkout, webhook and reconciler on two instances is credited once', async () => {
    const { orgId } = await be().org('Race');
    const id = await order(orgId);
    const vias: PaidVia[] = ['checkout', 'webhook', 'reconcile'];
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) =>
      (i % 2 ? two : one).creditOrder(id, { id: 'pay_race', method: 'upi', via: vias[i % 3] }, NOW + i, bonusStands)));
    assert.is(results.filter((r) => r.applied).length, 1);
    const paid = results.find((r) => r.applied)!.order;
    assert.ok(results.every((r) => r.order.status === 'paid' && r.order.receiptNo === paid.receiptNo && r.order.paymentId === 'pay_race'));
    assert.is(await balance(orgId), 100_000_000);
    assert.equal((await one.listMoneyEvents(orgId, 10)).map((e) => [e.kind, e.amountMicros]), [['payment', 100_000_000]]);
    assert.equal((await two.listPayments(orgId, 10)).map((p) => [p.id, p.status, p.amountMicros]), [['pay_race', 'captured', 118_000_000]]);
    assert.equal((await one.paidOrderByPayment('pay_race'))?.order.id, id);
  });

  test('a credit moves the balance, marks the org funded and tells the other instances (an org change)', async () => {
    const { orgId } = await be().org('Funded');
    const feed = be().pick((db) => {
      const f = changeFeedReader(db);
      return { latestSeq: async () => f.latestSeq(), since: async (s: number) => f.since(s) };
    }, postgresChangeFeedReader);
    const before = await feed.latestSeq();
    await one.creditOrder(await order(orgId), { id: newId('pay'), method: null, via: 'checkout' }, NOW + 5, bonusStands);
    const [org] = await rows<{ b: number; f: number | null }>(be(), 'SELECT balance_micros AS b, funded_at AS f FROM orgs WHERE id = ?', orgId);
    assert.equal(org, { b: 100_000_000, f: NOW + 5 });
    assert.equal((await feed.since(before)).map((c) => [c.kind, c.ref]), [['org', orgId]]);
  });

  test('receipt numbers stay gap-free and unique when many orders are paid at once on two instances', async () => {
    const orders = await Promise.all(Array.from({ length: 24 }, async (_, i) => order((await be().org(`Receipts ${i}`)).orgId)));
    const [{ top }] = await rows<{ top: number }>(be(), 'SELECT COALESCE(MAX(receipt_no), 0) AS top FROM payment_orders');
    const results = await Promise.all(orders.map((id, i) =>
      (i % 2 ? two : one).creditOrder(id, { id: `pay_${id}`, method: null, via: 'webhook' }, NOW, bonusStands)));
    assert.ok(results.every((r) => r.applied));
    const numbers = results.map((r) => r.order.receiptNo!).sort((a, b) => a - b);
    assert.equal(numbers, Array.from({ length: 24 }, (_, i) => top + 1 + i));
  });

  test("a promo's cap holds when orgs' orders are paid at once: exactly that many bonuses", async () => {
    await promo('CAPPED', 3);
    const orders = await Promise.all(Array.from({ length: 10 }, async (_, i) => order((await be().org(`Cap ${i}`)).orgId, 'CAPPED')));
    const results = await Promise.all(orders.map((id, i) =>
      (i % 2 ? two : one).creditOrder(id, { id: `pay_${id}`, method: null, via: 'checkout' }, NOW, bonusStands)));
    assert.ok(results.every((r) => r.applied));
    assert.is(results.filter((r) => r.bonusMicros === 50_000_000).length, 3);
    assert.ok(results.every((r) => r.bonusMicros === r.order.promoBonusMicros));
    assert.is((await one.promo('CAPPED', 'org_none'))!.promo.redemptions, 3);
    const [{ n }] = await rows<{ n: number }>(be(), `SELECT COUNT(*) AS n FROM money_events WHERE kind = 'promo_bonus' AND note = 'promo CAPPED'`);
    assert.is(n, 3);
  });

  test('one redemption per org when its orders with one code (in any case) are paid at once', async () => {
    await promo('Welcome', null);
    const { orgId } = await be().org('Greedy');
    // The code as typed differs in case between orders: it is one code.
    const orders = await Promise.all(['WELCOME', 'welcome', 'Welcome', 'wElCoMe', 'WELCOME', 'welcome'].map((c) => order(orgId, c)));
    const results = await Promise.all(orders.map((id, i) =>
      (i % 2 ? two : one).creditOrder(id, { id: `pay_${id}`, method: null, via: 'reconcile' }, NOW, bonusStands)));
    assert.ok(results.every((r) => r.applied));
    assert.is(results.filter((r) => r.bonusMicros > 0).length, 1);
    assert.is(await balance(orgId), 6 * 100_000_000 + 50_000_000);
    const found = await two.promo('WELCOME', orgId);
    assert.equal([found?.promo.code, found?.promo.redemptions, found?.redeemed], ['Welcome', 1, true]);
    assert.is((await one.promo('welcome', 'org_other'))?.redeemed, false);
    assert.is(await one.promo('WELCOME2', orgId), undefined);
  });

  test('a failed payment is kept beside the order, which stays open; a captured id stays captured', async () => {
    const { orgId } = await be().org('Failures');
    const id = await order(orgId);
    const o = (await one.findOrder(id))!;
    assert.equal([o.status, o.billTo, o.receiptNo], ['created', ADDRESS, null]);
    await one.recordFailedPayment(o, { id: 'pay_f1', amountMicros: 118_000_000, method: 'card', error: 'declined' }, NOW);
    assert.equal((await two.openOrdersSince(NOW, 10)).map((x) => x.id).includes(id), true);
    await two.creditOrder(id, { id: 'pay_ok', method: 'upi', via: 'checkout' }, NOW + 1, bonusStands);
    await one.recordFailedPayment(o, { id: 'pay_ok', amountMicros: 1, method: null, error: 'late' }, NOW + 2);
    assert.equal((await one.listPayments(orgId, 10)).map((p) => [p.id, p.status]), [['pay_ok', 'captured'], ['pay_f1', 'failed']]);
    assert.equal((await one.openOrdersSince(NOW, 100)).map((x) => x.id).includes(id), false);
    assert.equal(await one.ordersSince(orgId, NOW - 1), { count: 1, first: NOW });
  });

  test('addresses save and read back; the low-balance threshold arms, crosses once, and re-arms', async () => {
    const { orgId } = await be().org('Low');
    assert.is(await one.address(orgId), undefined);
    assert.equal(await one.saveAddress(orgId, ADDRESS, NOW), { ...ADDRESS, updatedAt: NOW });
    assert.equal(await two.saveAddress(orgId, { ...ADDRESS, gstin: '30AAAAA0000A1Z5' }, NOW + 1), { ...ADDRESS, gstin: '30AAAAA0000A1Z5', updatedAt: NOW + 1 });
    await one.setLowBalance(orgId, 10_000_000);
    assert.is(await two.lowBalance(orgId), 10_000_000);
    assert.equal((await one.lowBalanceCrossings()).filter((o) => o.id === orgId),
      [{ id: orgId, name: 'Low', balanceMicros: 0, lowBalanceMicros: 10_000_000 }]);
    await one.markLowBalanceMailed(orgId, NOW);
    assert.equal((await one.lowBalanceCrossings()).filter((o) => o.id === orgId), []);
    await one.creditOrder(await order(orgId), { id: newId('pay'), method: null, via: 'checkout' }, NOW, bonusStands);
    await one.lowBalanceCrossings();
    const [{ m }] = await rows<{ m: number | null }>(be(), 'SELECT low_balance_mailed_at AS m FROM orgs WHERE id = ?', orgId);
    assert.is(m, null);
  });
});
