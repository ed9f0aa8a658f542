// A payment neither the browser nor the webhook reported (the tab was closed, the webhook lost):
// the reconciler asks the payment provider about open orders and credits them, once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query } from '../support/ledger.js';
import { PAY_KEY_ID, PAY_KEY_SECRET, startMockPayments, type MockPayments } from '../support/payments-server.js';
import { signIn, type Browser } from '../support/session.js';
import { waitFor } from '../support/wait.js';

let gw: GatewayProcess;
let pay: MockPayments;
let b: Browser;

const json = async (r: Response) => (await r.json()) as any;
const balance = async () => (await json(await b.get('/me/billing'))).balance_inr;
async function order(amount_inr: number): Promise<string> {
  const r = await b.send('POST', '/me/billing/orders', { amount_inr });
  assert.is(r.status, 200);
  return (await json(r)).order_id;
}

test.before(async () => {
  pay = await startMockPayments();
  gw = await startGateway({
    // No webhook secret: only the browser or the reconciler can report a payment.
    billing: { payments: { apiBaseUrl: pay.url, keyId: PAY_KEY_ID, keySecret: PAY_KEY_SECRET }, seller: { state: '29' }, reconcileMs: 200 },
  });
  b = await signIn(gw, 'closed-the-tab@reconcile.example');
  assert.is((await b.send('POST', '/me/billing/address', { name: 'N', line1: 'L', city: 'C', state: 'Goa', pincode: '403001' })).status, 200);
});
test.after(async () => {
  await gw.cleanup();
  await pay.close();
});

test('a captured payment nobody reported is credited by the reconciler, once; failed tries are recorded', async () => {
  const paid = await order(200);
  const unpaid = await order(100);
  pay.pay(paid, { status: 'failed' });
  const proof = pay.pay(paid);
  await waitFor(async () => (await balance()) === 200, 5_000, 'the reconciled credit');
  const row = query(gw.dbPath, (db) => db.prepare('SELECT status, payment_id, paid_via FROM payment_orders WHERE id = ?').get(paid));
  assert.equal(row, { status: 'paid', payment_id: proof.payment_id, paid_via: 'reconcile' });
  const bill = await json(await b.get('/me/billing'));
  assert.equal(bill.payments.map((p: any) => p.status).sort(), ['captured', 'failed']);

  // The browser's late verification changes nothing; nor do later rounds.
  assert.is((await json(await b.send('POST', '/me/billing/verify', proof))).credited, false);
  const asked = pay.paymentQueries.length;
  await waitFor(() => pay.paymentQueries.length > asked + 2, 5_000, 'more rounds');
  assert.is(await balance(), 200);
  // Only orders still open are asked about.
  assert.ok(pay.paymentQueries.slice(asked).every((id) => id === unpaid));
  assert.equal(query(gw.dbPath, (db) => db.prepare("SELECT COUNT(*) FROM money_events WHERE kind = 'payment'").pluck().get()), 1);
});

test('a capture for another amount than the order is never credited', async () => {
  const id = await order(300);
  pay.pay(id, { amount: 100 });
  const asked = pay.paymentQueries.length;
  await waitFor(() => pay.paymentQueries.filter((q) => q === id).length >= 2 && pay.paymentQueries.length > asked, 5_000, 'rounds over the order');
  assert.is(await balance(), 200);
  assert.ok(gw.lines.some((l) => l.includes('payment amount differs from its order')));
});

test.run();
