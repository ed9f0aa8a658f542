// Billing (spec 4.6, 4.13): the billing address and GST, top-up orders with a real (loopback)
// payment provider, crediting once across the checkout verification and the signed webhook,
// promo codes, receipts, the PIN lookup and the low-balance mail.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { query, write } from '../support/ledger.js';
import { startMockProvider, type MockProvider } from '../support/mock-provider.js';
import { PAY_KEY_ID, PAY_KEY_SECRET, PAY_WEBHOOK_SECRET, sign, startMockPayments, type MockPayments } from '../support/payments-server.js';
import { signIn, type Browser } from '../support/session.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { bearer, chatBody, waitFor } from '../support/wait.js';

let gw: GatewayProcess;
let pay: MockPayments;
let groq: MockProvider;
let smtp: SmtpReceiver;

const json = async (r: Response) => (await r.json()) as any;
async function refusal(r: Response): Promise<[number, string, string]> {
  const e = (await json(r)).error;
  return [r.status, e?.code, e?.message];
}
const orgOf = async (b: Browser): Promise<string> => (await json(await b.get('/me'))).org.id;
const balanceOf = async (b: Browser): Promise<number> => (await json(await b.get('/me/billing'))).balance_inr;

const KARNATAKA = { name: 'Asha Rao', line1: '12 MG Road', city: 'Bengaluru', state: 'Karnataka', pincode: '560001' };
const MAHARASHTRA = { name: 'Ravi Kulkarni', line1: '4 Linking Road', city: 'Mumbai', state: '27', pincode: '400050', gstin: '27AAPFU0939F1ZV' };

/** A signed-in owner of a fresh personal org with a saved address. */
async function customer(tag: string, address: Record<string, unknown> = KARNATAKA): Promise<Browser> {
  const b = await signIn(gw, `${tag}-${Math.random().toString(36).slice(2, 8)}@topups.example`);
  const r = await b.send('POST', '/me/billing/address', address);
  assert.is(r.status, 200, await r.clone().text());
  return b;
}

async function order(b: Browser, body: Record<string, unknown>): Promise<any> {
  const r = await b.send('POST', '/me/billing/orders', body);
  assert.is(r.status, 200, await r.clone().text());
  return json(r);
}

test.before(async () => {
  [pay, groq] = await Promise.all([startMockPayments(), startMockProvider()]);
  pay.pincodes.set('560001', { District: 'Bangalore', State: 'Karnataka' });
  pay.pincodes.set('751001', { District: 'Khorda', State: 'Orissa' });
  smtp = await startSmtpReceiver();
  gw = await startGateway({
    // Credits must reach the data plane at once, not at the next poll of the change feed.
    changePollMs: 60_000,
    providers: { groq: { baseUrl: groq.url, apiKey: 'g' } },
    smtp: { host: '127.0.0.1', port: smtp.port, from: 'billing@gw.example' },
    billing: {
      payments: { apiBaseUrl: pay.url, keyId: PAY_KEY_ID, keySecret: PAY_KEY_SECRET, webhookSecret: PAY_WEBHOOK_SECRET, checkoutUrl: pay.checkoutUrl },
      seller: { name: 'Acme <Inference> Pvt Ltd', state: 'Karnataka', gstin: '29AAGCB7383J1Z4', address: '1 Residency Road, Bengaluru 560025', sac: '998315' },
      pincodeLookupUrl: pay.pincodeUrl,
      lowBalanceCheckMs: 200,
      maxOrdersPerHour: 4,
    },
  });
  await gw.cli('promo', 'create', 'WELCOME10', '--percent', '10', '--max-redemptions', '100');
  await gw.cli('promo', 'create', 'FLAT50', '--bonus-inr', '50');
  await gw.cli('promo', 'create', 'OLD', '--bonus-inr', '10', '--expires', '2020-01-01');
  await gw.cli('promo', 'create', 'ONCE', '--bonus-inr', '5', '--max-redemptions', '1');
});
test.after(async () => {
  await gw.cleanup();
  await Promise.all([pay.close(), groq.close(), smtp.close()]);
});

test('a new org sees its balance, the top-up terms and no address; without a session it is 401 no_session', async () => {
  const b = await signIn(gw, 'fresh@topups.example');
  const bill = await json(await b.get('/me/billing'));
  assert.is(bill.balance_inr, 0);
  assert.is(bill.address, null);
  assert.equal(bill.topups, { enabled: true, min_inr: 100, max_inr: 1000, gst_percent: 18, key_id: PAY_KEY_ID, checkout_url: pay.checkoutUrl });
  assert.equal([bill.money_events, bill.payments, bill.orders, bill.usage_30d.requests, bill.low_balance_inr], [[], [], [], 0, null]);
  assert.equal(await refusal(await fetch(`${gw.url}/me/billing`)), [401, 'no_session', 'Sign in first: this needs a dashboard session']);
  // No address yet: no order, and the payment provider is never called.
  const calls = pay.auths.length;
  const [status, code] = await refusal(await b.send('POST', '/me/billing/orders', { amount_inr: 500 }));
  assert.equal([status, code], [400, 'address_required']);
  assert.is(pay.auths.length, calls);
});

test('the address is checked field by field, the PIN code against the state: 400 bad_address names the field', async () => {
  const b = await signIn(gw, 'address@topups.example');
  const cases: [Record<string, unknown>, string][] = [
    [{ ...KARNATAKA, name: undefined }, "'name'"],
    [{ ...KARNATAKA, line1: '   ' }, "'line1'"],
    [{ ...KARNATAKA, city: 42 }, "'city'"],
    [{ ...KARNATAKA, state: 'Atlantis' }, "'state'"],
    [{ ...KARNATAKA, pincode: '012345' }, "'pincode'"],
    [{ ...KARNATAKA, pincode: '56000' }, "'pincode'"],
    // A Delhi PIN with Karnataka chosen would bill CGST+SGST of the wrong state.
    [{ ...KARNATAKA, pincode: '110001' }, "'pincode': PIN code 110001 is in Delhi (07), not in Karnataka (29)"],
    [{ ...MAHARASHTRA, pincode: '560001' }, "is in Karnataka (29), not in Maharashtra (27)"],
    [{ ...KARNATAKA, gstin: '29AAGCB7383J1Z5' }, "'gstin'"],
    // A valid GSTIN, but registered in Maharashtra.
    [{ ...KARNATAKA, gstin: '27AAPFU0939F1ZV' }, "'gstin'"],
    [{ ...KARNATAKA, line2: 'x'.repeat(201) }, "'line2'"],
    [{ ...KARNATAKA, name: 'Asha\u0000Rao' }, "'name'"],
  ];
  for (const [body, field] of cases) {
    const [status, code, message] = await refusal(await b.send('POST', '/me/billing/address', body));
    assert.equal([status, code], [400, 'bad_address'], JSON.stringify(body));
    assert.ok(message.includes(field), `${message} names ${field}`);
  }
  assert.equal((await refusal(await b.send('POST', '/me/billing/address', { ...KARNATAKA, extra: 1 })))[0], 400);
  assert.is((await json(await b.get('/me/billing'))).address, null, 'nothing was saved');

  const saved = await json(await b.send('POST', '/me/billing/address', { ...KARNATAKA, state: 'karnataka ', gstin: '29aagcb7383j1z4', pincode: 560001 }));
  assert.equal([saved.state, saved.state_code, saved.pincode, saved.gstin, saved.line2], ['Karnataka', '29', '560001', '29AAGCB7383J1Z4', null]);
  // Shared circles: a Goa PIN (403) is in the Maharashtra circle, a Puducherry one (605) in Tamil Nadu's.
  assert.is((await b.send('POST', '/me/billing/address', { ...KARNATAKA, state: 'Goa', pincode: '403001' })).status, 200);
  assert.is((await b.send('POST', '/me/billing/address', { ...KARNATAKA, state: 'Puducherry', pincode: '605001' })).status, 200);
  const moved = await json(await b.send('POST', '/me/billing/address', MAHARASHTRA));
  assert.equal([moved.state, moved.state_code, moved.gstin], ['Maharashtra', '27', '27AAPFU0939F1ZV']);
  assert.equal((await json(await b.get('/me/billing'))).address.city, 'Mumbai');
});

test('the PIN lookup fills city and state, with old state names mapped to GST codes', async () => {
  const b = await signIn(gw, 'pin@topups.example');
  assert.equal(await json(await b.get('/me/billing/pincode/560001')),
    { pincode: '560001', city: 'Bangalore', district: 'Bangalore', state: 'Karnataka', state_code: '29' });
  assert.equal((await json(await b.get('/me/billing/pincode/751001'))).state, 'Odisha');
  assert.equal((await refusal(await b.get('/me/billing/pincode/999999'))).slice(0, 2), [404, 'not_found']);
  assert.equal((await refusal(await b.get('/me/billing/pincode/abc'))).slice(0, 2), [400, 'bad_request']);
  assert.equal((await refusal(await b.get('/me/billing/pincode/056001'))).slice(0, 2), [400, 'bad_request']);
  pay.failingPins.add('110001');
  const [down, downCode, downMessage] = await refusal(await b.get('/me/billing/pincode/110001'));
  assert.equal([down, downCode], [503, 'unavailable']);
  assert.match(downMessage, /did not answer: status 500; enter the city and state by hand/);
  // 30 lookups a minute per org: the lookup service is a public one.
  for (let i = 6; i < 30; i++) assert.is((await b.get('/me/billing/pincode/560001')).status, 200);
  const [status, code, message] = await refusal(await b.get('/me/billing/pincode/560001'));
  assert.equal([status, code], [429, 'rate_limit_exceeded']);
  assert.match(message, /30 PIN lookups per minute/);
});

test('orders: whole rupees within 100-1000, GST split by place of supply, the provider paid in paise', async () => {
  const b = await customer('order');
  for (const amount_inr of [99, 1001, 0, -5]) {
    const [status, code, message] = await refusal(await b.send('POST', '/me/billing/orders', { amount_inr }));
    assert.equal([status, code], [400, 'bad_request'], String(amount_inr));
    assert.match(message, /100 to 1000/);
  }
  assert.equal((await refusal(await b.send('POST', '/me/billing/orders', { amount_inr: 100.5 })))[0], 400);
  assert.equal((await refusal(await b.send('POST', '/me/billing/orders', { amount_inr: '500' })))[0], 400);

  // Karnataka buyer, Karnataka seller: CGST + SGST.
  const local = await order(b, { amount_inr: 500 });
  assert.equal(local.tax, { cgst_inr: 45, sgst_inr: 45, igst_inr: 0, gst_percent: 18 });
  assert.equal([local.credit_inr, local.total_inr, local.amount_paise, local.key_id, local.currency], [500, 590, 59_000, PAY_KEY_ID, 'INR']);
  assert.equal(local.place_of_supply, { state: 'Karnataka', state_code: '29' });
  assert.equal([local.checkout_url, local.merchant_name], [pay.checkoutUrl, 'Acme <Inference> Pvt Ltd']);
  const sent = pay.orders.get(local.order_id)!;
  assert.equal([sent.amount, sent.currency, sent.notes.org_id], [59_000, 'INR', await orgOf(b)]);
  assert.is(pay.auths.at(-1), `Basic ${Buffer.from(`${PAY_KEY_ID}:${PAY_KEY_SECRET}`).toString('base64')}`);

  // Maharashtra buyer: IGST.
  const away = await customer('igst', MAHARASHTRA);
  const inter = await order(away, { amount_inr: 1000 });
  assert.equal(inter.tax, { cgst_inr: 0, sgst_inr: 0, igst_inr: 180, gst_percent: 18 });
  assert.equal([inter.total_inr, inter.amount_paise], [1180, 118_000]);
  const odd = await order(away, { amount_inr: 137 });
  assert.equal([odd.tax.igst_inr, odd.total_inr, odd.amount_paise], [24.66, 161.66, 16_166]);

  // Each order is a call on the operator's payment account: an org makes at most 4 an hour here.
  for (let i = 0; i < 2; i++) await order(away, { amount_inr: 100 });
  const capped = await away.send('POST', '/me/billing/orders', { amount_inr: 100 });
  assert.equal((await refusal(capped.clone())).slice(0, 2), [429, 'rate_limit_exceeded']);
  const retryAfter = Number(capped.headers.get('retry-after'));
  assert.ok(retryAfter > 3_500 && retryAfter <= 3_600, `retry-after ${retryAfter}`);

  // The provider refusing or not answering leaves no order behind.
  pay.refuseNext = 500;
  const [status, code, message] = await refusal(await b.send('POST', '/me/billing/orders', { amount_inr: 200 }));
  assert.equal([status, code], [503, 'unavailable']);
  assert.match(message, /refused the order \(500\): The provider is having a bad day/);
  pay.refuseNext = 0;
  const [dropped, droppedCode, droppedMessage] = await refusal(await b.send('POST', '/me/billing/orders', { amount_inr: 200 }));
  assert.equal([dropped, droppedCode], [503, 'unavailable']);
  assert.match(droppedMessage, /The payment provider did not answer: .*; no order was made/);
  const orders = query(gw.dbPath, (db) => db.prepare('SELECT COUNT(*) FROM payment_orders WHERE org_id = ?').pluck().get(sent.notes.org_id));
  assert.is(orders, 1);
});

test('checkout verification credits once, reaches the data plane at once, and makes new keys standard', async () => {
  const b = await customer('verify');
  const orgId = await orgOf(b);
  const trial = await json(await b.send('POST', '/me/keys', { name: 'before' }));
  assert.ok(trial.key.startsWith('gw-trial-'));

  const o = await order(b, { amount_inr: 300 });
  const proof = pay.pay(o.order_id);
  const forged = await b.send('POST', '/me/billing/verify', { ...proof, signature: sign('not-the-secret', `${o.order_id}|${proof.payment_id}`) });
  assert.equal((await refusal(forged)).slice(0, 2), [400, 'bad_request']);
  const swapped = await b.send('POST', '/me/billing/verify', { ...proof, payment_id: 'pay_other' });
  assert.equal((await refusal(swapped)).slice(0, 2), [400, 'bad_request']);
  assert.is(await balanceOf(b), 0);

  const done = await json(await b.send('POST', '/me/billing/verify', proof));
  assert.equal(done, {
    credited: true, order_id: o.order_id, payment_id: proof.payment_id, credit_inr: 300, bonus_inr: 0, balance_inr: 300,
    receipt_url: `/me/billing/receipts/${proof.payment_id}`,
  });
  // Again, and then the webhook for the same payment: nothing more is credited.
  assert.is((await json(await b.send('POST', '/me/billing/verify', proof))).credited, false);
  const hook = await pay.webhook(gw.url, 'payment.captured', { id: proof.payment_id, order_id: o.order_id, amount: 35_400, status: 'captured', method: 'upi' });
  assert.equal([hook.status, (await json(hook)).status], [200, 'already_credited']);
  assert.is(await balanceOf(b), 300);
  const events = query(gw.dbPath, (db) => db.prepare('SELECT kind, amount_micros FROM money_events WHERE org_id = ?').all(orgId));
  assert.equal(events, [{ kind: 'payment', amount_micros: 300_000_000 }]);

  // Funded: new keys are standard, and they work on the new balance right away (the change
  // feed is polled once a minute here, so only the direct notice can have moved it).
  const std = await json(await b.send('POST', '/me/keys', { name: 'after' }));
  assert.ok(std.key.startsWith('gw-') && !std.key.startsWith('gw-trial-'));
  const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(std.key), body: chatBody() });
  assert.is(r.status, 200);
  await r.arrayBuffer();

  // The request shows in the 30-day usage once the ledger has it, with its cost.
  const bill = await waitFor(async () => {
    const x = await json(await b.get('/me/billing'));
    return x.usage_30d.requests === 1 && x;
  }, 5_000, 'the request in usage_30d');
  assert.ok(bill.usage_30d.spent_inr > 0 && bill.usage_30d.spent_inr < 0.01);
  assert.equal(bill.usage_30d.days.map((d: any) => [d.requests, d.spent_inr]), [[1, bill.usage_30d.spent_inr]]);
  assert.ok(Math.abs(bill.balance_inr - (300 - bill.usage_30d.spent_inr)) < 1e-9);
  assert.equal(bill.payments.map((p: any) => [p.id, p.status, p.amount_inr, p.receipt_url]),
    [[proof.payment_id, 'captured', 354, `/me/billing/receipts/${proof.payment_id}`]]);
  assert.equal(bill.money_events.map((e: any) => [e.kind, e.amount_inr]), [['payment', 300]]);

  // The owner is mailed a confirmation with the receipt link, once.
  const confirmation = await waitFor(() => smtp.decoded().find((m) => m.includes(`To: ${b.email}`) && m.includes('Payment received')), 5_000, 'the mail') as string;
  assert.ok(confirmation.includes('Subject: [gw] Payment received: ₹354.00, ₹300.00 of credit'), confirmation);
  assert.ok(confirmation.includes(`${gw.url}/me/billing/receipts/${proof.payment_id}`));
  assert.is(smtp.decoded().filter((m) => m.includes(`To: ${b.email}`) && m.includes('Payment received')).length, 1);

  // The operator sees the same from the CLI.
  const shown = await gw.cli('org', 'show', orgId);
  assert.equal([shown.tier, shown.orders.length, shown.orders[0].status, shown.orders[0].payment_id, shown.orders[0].paid_via, shown.orders[0].total_inr],
    ['standard', 1, 'paid', proof.payment_id, 'checkout', 354]);
  assert.equal(shown.money_events.map((e: any) => [e.kind, e.amount_inr]), [['payment', 300]]);
  assert.equal(shown.active_keys.map((k: any) => k.tier).sort(), ['standard', 'trial']);

  // Another org cannot verify (or even see) this order.
  const other = await customer('other');
  assert.equal((await refusal(await other.send('POST', '/me/billing/verify', proof))).slice(0, 2), [404, 'not_found']);
});

test('a credit lifts a standard key out of 402 at once', async () => {
  const b = await customer('dry');
  const orgId = await orgOf(b);
  await gw.cli('org', 'credit', orgId, '0.000001');
  const { key } = await json(await b.send('POST', '/me/keys', { name: 'std' }));
  const chat = async () => {
    const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body: chatBody() });
    await r.arrayBuffer();
    return r.status;
  };
  await waitFor(async () => (await chat()) === 402, 5_000, 'the balance to run dry');
  const o = await order(b, { amount_inr: 100 });
  assert.is((await json(await b.send('POST', '/me/billing/verify', pay.pay(o.order_id)))).credited, true);
  assert.is(await chat(), 200);
});

test('the webhook: signed, records failures, credits a capture once, ignores what is not ours', async () => {
  const b = await customer('hook');
  const o = await order(b, { amount_inr: 200 });
  const entity = (id: string, extra: Record<string, unknown> = {}) => ({ id, order_id: o.order_id, amount: 23_600, ...extra });

  const unsigned = await fetch(`${gw.url}/webhooks/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal((await refusal(unsigned)).slice(0, 2), [400, 'bad_request']);
  const wrongKey = await pay.webhook(gw.url, 'payment.captured', entity('pay_x'), { secret: PAY_KEY_SECRET });
  assert.equal((await refusal(wrongKey)).slice(0, 2), [400, 'bad_request']);
  assert.is(await balanceOf(b), 0);

  const failed = await pay.webhook(gw.url, 'payment.failed', entity('pay_failed1', { status: 'failed', method: 'card', error_description: 'Card declined' }));
  assert.equal((await json(failed)).status, 'recorded');
  // Money taken that does not match the order is never credited.
  const short = await pay.webhook(gw.url, 'payment.captured', entity('pay_short', { amount: 100 }));
  assert.equal(await json(short), { status: 'ignored', detail: 'amount does not match the order' });
  assert.equal((await json(await pay.webhook(gw.url, 'payment.captured', { ...entity('pay_foreign'), order_id: 'order_elsewhere' }))).status, 'ignored');
  assert.equal((await json(await pay.webhook(gw.url, 'order.paid', entity('pay_y')))).status, 'ignored');
  const malformed = await pay.webhook(gw.url, 'payment.captured', { id: 'pay_z', order_id: o.order_id, amount: '236' });
  assert.equal((await refusal(malformed)).slice(0, 2), [400, 'bad_request']);
  const notJson = 'payment.captured pay_z';
  const garbled = await fetch(`${gw.url}/webhooks/payments`, { method: 'POST', headers: { 'x-payments-signature': sign(PAY_WEBHOOK_SECRET, notJson) }, body: notJson });
  assert.equal(await refusal(garbled), [400, 'bad_request', 'The webhook body is not JSON']);
  assert.is(await balanceOf(b), 0);

  // Razorpay's own header name carries the same signature.
  const raw = JSON.stringify({ event: 'payment.captured', payload: { payment: { entity: { ...entity('pay_rzp'), amount: 1 } } } });
  const rzp = await fetch(`${gw.url}/webhooks/payments`, { method: 'POST', headers: { 'x-razorpay-signature': sign(PAY_WEBHOOK_SECRET, raw) }, body: raw });
  assert.equal(await json(rzp), { status: 'ignored', detail: 'amount does not match the order' });
  const captured = await pay.webhook(gw.url, 'payment.captured', entity('pay_good', { status: 'captured', method: 'upi' }));
  assert.equal(await json(captured), { status: 'credited' });
  assert.equal((await json(await pay.webhook(gw.url, 'payment.captured', entity('pay_good')))).status, 'already_credited');
  // The browser's verification arrives after the webhook: nothing more.
  const late = pay.pay(o.order_id);
  assert.is((await json(await b.send('POST', '/me/billing/verify', { ...late, payment_id: 'pay_good', signature: sign(PAY_KEY_SECRET, `${o.order_id}|pay_good`) }))).credited, false);
  assert.is(await balanceOf(b), 200);

  const bill = await json(await b.get('/me/billing'));
  assert.equal(bill.payments.map((p: any) => [p.id, p.status, p.method, p.error, p.receipt_url !== null]).sort(), [
    ['pay_failed1', 'failed', 'card', 'Card declined', false],
    ['pay_good', 'captured', 'upi', null, true],
  ]);
});

/** A form post to the gateway, as a browser sends one from another site (no cookie, no Origin of ours). */
const formPost = (path: string, form: Record<string, string> | string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, {
  method: 'POST', redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://api.razorpay.com', ...headers },
  body: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
});
/** The hidden fields of an HTML form, as the mock checkout writes them. */
const hiddenFields = (html: string): Record<string, string> => Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)]
  .map((m) => [m[1].replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&'), m[2].replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&')]));
const returned = (r: Response): URL => {
  assert.is(r.status, 303);
  return new URL(r.headers.get('location')!, gw.url);
};

test('POST /billing/return: the checkout\'s form post becomes a 303 to the billing page, which verifies; it credits nothing itself', async () => {
  const b = await customer('return');
  const o = await order(b, { amount_inr: 400, promo_code: 'FLAT50' });
  // The dashboard's form, posted to the provider's hosted checkout; its Pay button posts back to callback_url.
  const fields = {
    key_id: o.key_id, order_id: o.order_id, amount: String(o.amount_paise), currency: 'INR', name: o.merchant_name, description: 'Top-up',
    'prefill[email]': b.email, callback_url: `${gw.url}/billing/return`, cancel_url: `${gw.url}/billing?payment_cancelled=1`,
  };
  const page = await fetch(pay.checkoutUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  assert.is(page.status, 200);
  assert.ok((await page.text()).includes('Pay ₹472.00'));
  const paid = await fetch(pay.url + '/checkout/pay', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const proof = hiddenFields(await paid.text());
  assert.equal(Object.keys(proof), ['razorpay_payment_id', 'razorpay_order_id', 'razorpay_signature']);

  // No session travels with a cross-site post: the route only hands the ids on.
  const back = returned(await formPost('/billing/return', proof));
  assert.is(back.pathname, '/billing');
  assert.equal(Object.fromEntries(back.searchParams), { order_id: o.order_id, payment_id: proof.razorpay_payment_id, signature: proof.razorpay_signature });
  assert.is(await balanceOf(b), 0, 'the return itself credits nothing');
  const done = await json(await b.send('POST', '/me/billing/verify', Object.fromEntries(back.searchParams)));
  assert.equal([done.credited, done.credit_inr, done.bonus_inr, done.balance_inr], [true, 400, 50, 450]);
  // A second return of the same post changes nothing.
  const again = returned(await formPost('/billing/return', proof));
  assert.is((await json(await b.send('POST', '/me/billing/verify', Object.fromEntries(again.searchParams)))).credited, false);
  assert.is(await balanceOf(b), 450);

  // A failure: the provider's error fields, its description shown in words, the order named.
  const failedPage = await fetch(pay.url + '/checkout/fail', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const failure = hiddenFields(await failedPage.text());
  const failed = returned(await formPost('/billing/return', failure));
  assert.equal(Object.fromEntries(failed.searchParams), { payment_error: failure['error[description]'], order_id: o.order_id });
});

test('POST /billing/return: whatever is posted, a 303 to the billing page with a failure in words (or 413), never a 5xx', async () => {
  const sig = 'a'.repeat(64);
  const GENERIC = 'The payment provider sent back an answer the gateway could not read';
  const cases: [string, Record<string, string>][] = [
    ['', { payment_error: GENERIC }],
    ['{"razorpay_payment_id":"pay_1"}', { payment_error: GENERIC }],
    ['razorpay_payment_id=pay_1&razorpay_order_id=order_1', { payment_error: GENERIC, order_id: 'order_1' }],
    [`razorpay_payment_id=pay_1&razorpay_order_id=order_1&razorpay_signature=${'z'.repeat(64)}`, { payment_error: GENERIC, order_id: 'order_1' }],
    [`razorpay_payment_id=pay%2F..%2F1&razorpay_order_id=order_1&razorpay_signature=${sig}`, { payment_error: GENERIC, order_id: 'order_1' }],
    [`razorpay_payment_id=pay_1&razorpay_order_id=${'o'.repeat(65)}&razorpay_signature=${sig}`, { payment_error: GENERIC }],
    ['error%5Bcode%5D=BAD_REQUEST_ERROR', { payment_error: 'The payment provider reported a failure without saying why' }],
    ['error%5Bdescription%5D=%20%0D%0A%00', { payment_error: GENERIC }],
    ['error%5Bdescription%5D=Card%0D%0Adeclined%3Cscript%3E&error%5Bmetadata%5D%5Border_id%5D=order_9', { payment_error: 'Card declined<script>', order_id: 'order_9' }],
    [`error%5Bdescription%5D=${'x'.repeat(5000)}`, { payment_error: `${'x'.repeat(199)}…` }],
    ['%E0%A4%A=%ZZ&&==&\xff', { payment_error: GENERIC }],
  ];
  for (const [body, want] of cases) {
    const r = await formPost('/billing/return', body);
    assert.is(r.status, 303, body.slice(0, 60));
    assert.is(r.headers.get('cache-control'), 'no-store');
    const to = new URL(r.headers.get('location')!, gw.url);
    assert.is(to.origin + to.pathname, `${gw.url}/billing`, 'always this gateway\'s own page');
    assert.equal(Object.fromEntries(to.searchParams), want, body.slice(0, 60));
  }
  const sent = await fetch(`${gw.url}/billing/return`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `error%5Bdescription%5D=${'x'.repeat(20_000)}` });
  assert.equal((await refusal(sent)).slice(0, 2), [413, 'payload_too_large']);
  // In the route table: documented as a form post answered with 303.
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  const op = doc.paths['/billing/return'].post;
  assert.ok(op.requestBody.content['application/x-www-form-urlencoded'].schema.properties.razorpay_signature);
  assert.ok(op.responses['303'] && !op.responses['200']);
  assert.equal(op.security, []);
});

test('promo codes: checked, priced, redeemed once per org when paid, capped, expired codes refused', async () => {
  const b = await customer('promo');
  const check = (body: Record<string, unknown>, who = b) => who.send('POST', '/me/billing/promo/check', body);
  assert.equal(await json(await check({ code: 'welcome10', amount_inr: 500 })),
    { code: 'WELCOME10', valid: true, kind: 'percent', percent: 10, bonus_inr: 50, expires_at: null });
  assert.is((await json(await check({ code: 'FLAT50' }))).bonus_inr, 50);
  for (const code of ['NOPE', 'OLD']) assert.equal((await refusal(await check({ code })))[1], 'promo_invalid', code);
  assert.equal((await refusal(await b.send('POST', '/me/billing/orders', { amount_inr: 100, promo_code: 'OLD' })))[1], 'promo_invalid');

  const o = await order(b, { amount_inr: 250, promo_code: 'Welcome10' });
  assert.equal([o.promo_code, o.bonus_inr, o.total_inr], ['WELCOME10', 25, 295]);
  // A second open order with the same code: both were quoted, only one can be redeemed.
  const o2 = await order(b, { amount_inr: 100, promo_code: 'WELCOME10' });
  assert.is((await json(await b.send('POST', '/me/billing/verify', pay.pay(o.order_id)))).bonus_inr, 25);
  const second = await json(await b.send('POST', '/me/billing/verify', pay.pay(o2.order_id)));
  assert.equal([second.credited, second.bonus_inr, second.balance_inr], [true, 0, 375]);
  const promoBill = await json(await b.get('/me/billing'));
  assert.equal(promoBill.money_events.map((e: any) => [e.kind, e.amount_inr]), [['payment', 100], ['promo_bonus', 25], ['payment', 250]]);
  // Both orders are paid; the second one's bonus went to the first.
  assert.equal(promoBill.orders.map((x: any) => [x.id, x.status, x.promo_code, x.bonus_inr]).sort(),
    [[o.order_id, 'paid', 'WELCOME10', 25], [o2.order_id, 'paid', 'WELCOME10', 0]].sort());
  assert.equal((await refusal(await check({ code: 'WELCOME10' })))[1], 'promo_redeemed');
  assert.equal((await refusal(await b.send('POST', '/me/billing/orders', { amount_inr: 100, promo_code: 'WELCOME10' })))[1], 'promo_redeemed');

  // ONCE has one redemption: the first org to pay takes it, then it is used up for everyone.
  const first = await customer('once-a');
  const late = await customer('once-b');
  const oa = await order(first, { amount_inr: 100, promo_code: 'ONCE' });
  assert.is((await json(await first.send('POST', '/me/billing/verify', pay.pay(oa.order_id)))).bonus_inr, 5);
  assert.equal((await refusal(await check({ code: 'ONCE' }, late)))[1], 'promo_invalid');
  const list = await gw.cli('promo', 'list');
  assert.equal(list.find((p: any) => p.code === 'ONCE').redemptions, 1);

  await gw.cli('promo', 'disable', 'FLAT50');
  assert.equal((await refusal(await check({ code: 'FLAT50' })))[1], 'promo_invalid');
});

test('receipts: printable HTML with the GST split and escaped names, only for the paying org', async () => {
  const b = await customer('receipt', { ...KARNATAKA, name: 'Ōm <b>&</b> Sons', line2: 'Floor "2"', gstin: '29AAGCB7383J1Z4' });
  const o = await order(b, { amount_inr: 500 });
  const proof = pay.pay(o.order_id);
  await b.send('POST', '/me/billing/verify', proof);
  const r = await b.get(`/me/billing/receipts/${proof.payment_id}`);
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type')!, /^text\/html; charset=utf-8/);
  assert.is(r.headers.get('content-security-policy'), "default-src 'none'; style-src 'unsafe-inline'");
  const html = await r.text();
  for (const s of ['Prepaid inference credit (SAC 998315)', 'CGST 9%', 'SGST 9%', '₹45.00', '₹590.00', '₹500.00', 'GSTIN 29AAGCB7383J1Z4', 'Acme &lt;Inference&gt; Pvt Ltd',
    'Ōm &lt;b&gt;&amp;&lt;/b&gt; Sons', 'Floor &quot;2&quot;', 'Karnataka (29)', o.order_id]) {
    assert.ok(html.includes(s), `receipt shows ${s}`);
  }
  assert.not.ok(html.includes('IGST') || html.includes('<b>&</b>'));
  assert.match(html, /R\/\d{4}-\d{2}\/\d{6}/);

  const other = await customer('receipt-other');
  assert.equal((await refusal(await other.get(`/me/billing/receipts/${proof.payment_id}`))).slice(0, 2), [404, 'not_found']);
  assert.equal((await refusal(await b.get('/me/billing/receipts/pay_unknown'))).slice(0, 2), [404, 'not_found']);
});

test('billing is for owners: a member of a team org gets 403', async () => {
  const owner = await signIn(gw, 'team-owner@topups.example');
  const team = await json(await owner.send('POST', '/me/orgs', { name: 'Payers' }));
  await owner.send('POST', '/me/orgs/switch', { org_id: team.id });
  const inv = await json(await owner.send('POST', '/me/members', { email: 'team-member@topups.example', role: 'admin' }));
  const admin = await signIn(gw, 'team-member@topups.example');
  await admin.send('POST', `/me/invitations/${inv.id}/accept`);
  await admin.send('POST', '/me/orgs/switch', { org_id: team.id });
  for (const [m, p, body] of [['GET', '/me/billing'], ['POST', '/me/billing/orders', { amount_inr: 100 }], ['POST', '/me/billing/address', KARNATAKA],
    ['GET', '/me/billing/pincode/560001']] as const) {
    assert.equal((await refusal(await admin.send(m, p, body))).slice(0, 2), [403, 'forbidden'], `${m} ${p}`);
  }
  assert.is((await owner.get('/me/billing')).status, 200);
});

test('the low-balance mail goes to the owners once per crossing; settings validate and clear', async () => {
  const b = await customer('low');
  const orgId = await orgOf(b);
  assert.equal((await refusal(await b.send('POST', '/me/billing/settings', { low_balance_inr: -1 })))[0], 400);
  assert.equal((await refusal(await b.send('POST', '/me/billing/settings', {})))[0], 400);
  await gw.cli('org', 'credit', orgId, '40');
  assert.equal(await json(await b.send('POST', '/me/billing/settings', { low_balance_inr: 50 })), { low_balance_inr: 50 });
  assert.is((await json(await b.get('/me/billing'))).low_balance_inr, 50);
  const mine = () => smtp.decoded().filter((m) => m.includes(`To: ${b.email}`));
  await waitFor(() => mine().length > 0, 5_000, 'the low-balance mail');
  const [mail] = mine();
  assert.ok(mail.includes('balance ₹40.00 is below ₹50.00'), mail);
  assert.ok(mail.includes('402 insufficient_credits'));
  await new Promise((r) => setTimeout(r, 600));
  assert.is(mine().length, 1, 'once per crossing');

  // A top-up above the threshold re-arms it; falling below again (an operator's adjustment
  // written by another process) mails again.
  await gw.cli('org', 'credit', orgId, '20');
  await new Promise((r) => setTimeout(r, 600));
  assert.is(mine().length, 1);
  write(gw.dbPath, (db) => {
    db.prepare("INSERT INTO money_events (org_id, at, kind, amount_micros, note) VALUES (?, ?, 'adjustment', ?, 'test')").run(orgId, Date.now(), -15_000_000);
    db.prepare('UPDATE orgs SET balance_micros = balance_micros - 15000000 WHERE id = ?').run(orgId);
  });
  await waitFor(() => mine().length === 2, 5_000, 'a second mail after the balance fell again');
  assert.ok(mine()[1].includes('balance ₹45.00 is below ₹50.00'));
  assert.equal(await json(await b.send('POST', '/me/billing/settings', { low_balance_inr: null })), { low_balance_inr: null });
});

test('signed webhooks are never refused by the public per-IP limit; unsigned and badly signed ones are', async () => {
  const tight = await startGateway({
    limits: { publicRpmPerIp: 3 },
    billing: {
      payments: { apiBaseUrl: pay.url, keyId: PAY_KEY_ID, keySecret: PAY_KEY_SECRET, webhookSecret: PAY_WEBHOOK_SECRET },
      seller: { name: 'Acme', state: 'Karnataka', gstin: '29AAGCB7383J1Z4', address: '1 Residency Road, Bengaluru 560025', sac: '998315' },
      pincodeLookupUrl: pay.pincodeUrl,
    },
  });
  try {
    const b = await signIn(tight, `burst-${Math.random().toString(36).slice(2, 8)}@topups.example`); // one public request (the login link)
    assert.is((await b.send('POST', '/me/billing/address', KARNATAKA)).status, 200);
    const r = await b.send('POST', '/me/billing/orders', { amount_inr: 200 });
    const o = await json(r);
    const unsigned = () => fetch(`${tight.url}/webhooks/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal((await refusal(await unsigned())).slice(0, 2), [400, 'bad_request']);
    const forged = await pay.webhook(tight.url, 'payment.captured', { id: 'pay_f', order_id: o.order_id, amount: 23_600 }, { secret: 'not-the-secret' });
    assert.equal((await refusal(forged)).slice(0, 2), [400, 'bad_request']);
    const limited = await unsigned();
    assert.equal((await refusal(limited)).slice(0, 2), [429, 'rate_limit_exceeded'], 'the IP has spent its 3 public requests');
    // A burst of genuine deliveries from the same address, ten times the limit: every one is answered.
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      pay.webhook(tight.url, 'payment.failed', { id: `pay_declined${i}`, order_id: o.order_id, amount: 23_600, status: 'failed', error_description: 'Declined' })));
    assert.equal(burst.map((x) => x.status), Array(30).fill(200));
    const captured = await pay.webhook(tight.url, 'payment.captured', { id: 'pay_burst_ok', order_id: o.order_id, amount: 23_600, status: 'captured' });
    assert.equal(await json(captured), { status: 'credited' });
    assert.is(await json(await b.get('/me/billing')).then((x: any) => x.balance_inr), 200);
    assert.equal((await refusal(await unsigned())).slice(0, 2), [429, 'rate_limit_exceeded'], 'unsigned traffic stays limited');
  } finally {
    await tight.cleanup();
  }
});

test('without a payment provider, top-ups and webhooks are 503 billing_disabled; the rest still works', async () => {
  const bare = await startGateway({ billing: { pincodeLookupUrl: pay.pincodeUrl } });
  try {
    const b = await signIn(bare, 'nobilling@topups.example');
    assert.equal((await json(await b.get('/me/billing'))).topups, { enabled: false, min_inr: 100, max_inr: 1000, gst_percent: 18, key_id: null, checkout_url: null });
    assert.is((await b.send('POST', '/me/billing/address', KARNATAKA)).status, 200);
    assert.equal((await refusal(await b.send('POST', '/me/billing/orders', { amount_inr: 100 }))).slice(0, 2), [503, 'billing_disabled']);
    assert.equal((await refusal(await b.send('POST', '/me/billing/promo/check', { code: 'X' }))).slice(0, 2), [503, 'billing_disabled']);
    assert.equal((await refusal(await b.send('POST', '/me/billing/verify', { order_id: 'o', payment_id: 'p', signature: 's' }))).slice(0, 2), [503, 'billing_disabled']);
    const hook = await fetch(`${bare.url}/webhooks/payments`, { method: 'POST', body: '{}', headers: { 'x-payments-signature': 'x' } });
    assert.equal((await refusal(hook)).slice(0, 2), [503, 'billing_disabled']);
    // No mail relay: a low-balance threshold could never be delivered.
    assert.equal((await refusal(await b.send('POST', '/me/billing/settings', { low_balance_inr: 10 }))).slice(0, 2), [400, 'unavailable']);
  } finally {
    await bare.cleanup();
  }
});

test.run();
