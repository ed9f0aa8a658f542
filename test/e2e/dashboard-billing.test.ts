// The dashboard's billing page in a real browser: the billing address with the PIN autofill, a
// top-up with a promo code through the payment provider's hosted checkout (a form post away and
// back through POST /billing/return), the credit shown once whether the webhook or the return
// comes first, failures in words, receipts, the low-balance alert, themes and the phone layout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, watchedPage, type PageProblems } from '../support/browser.js';
import { CHECKOUT_FAILURE, PAY_KEY_ID, PAY_KEY_SECRET, PAY_WEBHOOK_SECRET, sign, startMockPayments, type MockPayments } from '../support/payments-server.js';
import { signIn } from '../support/session.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';

let gw: GatewayProcess;
let browser: Browser;
let pay: MockPayments;
let smtp: SmtpReceiver;
/** The owner whose org every test but the last two builds on: one browser context, one page. */
let owner: { ctx: BrowserContext; page: Page; problems: PageProblems };
const OWNER = 'asha@billing.example';
const SELLER = 'Acme Inference Pvt Ltd';

test.before(async () => {
  [pay, smtp, browser] = await Promise.all([startMockPayments(), startSmtpReceiver(), launchBrowser()]);
  pay.pincodes.set('560001', { District: 'Bangalore', State: 'Karnataka' });
  pay.failingPins.add('110001');
  gw = await startGateway({
    smtp: { host: '127.0.0.1', port: smtp.port, from: 'billing@gw.example' },
    billing: {
      payments: { apiBaseUrl: pay.url, keyId: PAY_KEY_ID, keySecret: PAY_KEY_SECRET, webhookSecret: PAY_WEBHOOK_SECRET, checkoutUrl: pay.checkoutUrl },
      seller: { name: SELLER, state: 'Karnataka', gstin: '29AAGCB7383J1Z4', address: '1 Residency Road, Bengaluru 560025', sac: '998315' },
      pincodeLookupUrl: pay.pincodeUrl,
    },
  });
  await gw.cli('promo', 'create', 'WELCOME10', '--percent', '10');
});
test.after(async () => {
  await owner?.ctx.close();
  await browser?.close();
  await gw?.cleanup();
  await Promise.all([pay?.close(), smtp?.close()]);
});

const billingJson = async (ctx: BrowserContext) => (await ctx.request.get(gw.url + '/me/billing')).json();

async function noViolations(page: Page): Promise<void> {
  const v = await axeSerious(page);
  assert.is(v.length, 0, describeViolations(v));
}

/** Fills the top-up form and goes on to the order's breakdown. */
async function orderTopUp(page: Page, amount: string, promo = ''): Promise<void> {
  const form = page.getByRole('form', { name: 'Top up' });
  await form.getByLabel('Amount (₹)').fill(amount);
  await form.getByLabel('Promo code (optional)').fill(promo);
  await form.getByRole('button', { name: 'Continue to payment' }).click();
}

/** From the breakdown to the provider's hosted checkout page. */
async function toCheckout(page: Page, total: string): Promise<void> {
  await page.getByRole('button', { name: `Pay ${total}` }).click();
  await page.waitForURL(pay.checkoutUrl);
  await page.getByRole('heading', { name: `Pay ${total}` }).waitFor();
}

test('an owner saves a billing address with the PIN autofill, tops up ₹500 with a promo code through the checkout, and sees the credit, the balance and the receipt', async () => {
  owner = await signedIn(browser, gw, OWNER);
  const { page, ctx } = owner;
  await skipSurvey(page);
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Billing' }).click();
  await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
  await page.getByText('No payments yet.').waitFor();
  assert.ok(await page.getByText('₹0.00').first().isVisible());

  // No address yet: the order is refused, in words that say where to go.
  await orderTopUp(page, '500');
  await page.getByRole('alert').filter({ hasText: 'Add a billing address (below) before your first top-up' }).waitFor();
  await orderTopUp(page, '50');
  await page.getByRole('alert').filter({ hasText: 'Enter whole rupees from ₹100.00 to ₹1,000.00.' }).waitFor();

  const form = page.getByRole('form', { name: 'Billing address' });
  await form.getByLabel('Name (person or business)').fill('Asha Rao');
  await form.getByLabel('Address line 1').fill('12 MG Road');
  const pin = form.getByLabel('PIN code', { exact: true });
  // Lookups that fail say so, and what to do.
  await pin.fill('999999');
  await form.getByText('No post office has PIN code 999999. Check the number, or fill in the city and state yourself.').waitFor();
  await pin.fill('110001');
  await form.getByText('The PIN code lookup is not answering right now. Fill in the city and state yourself.').waitFor();
  // The browser logs the gateway's 503 for the lookup on its own; the page said what it means.
  assert.is(owner.problems.list.length, 1, owner.problems.list.join('\n'));
  assert.match(owner.problems.list[0], /^console: Failed to load resource: the server responded with a status of 503 \(Service Unavailable\)/);
  owner.problems.list.length = 0;
  await pin.fill('056001');
  await form.getByText('A PIN code is six digits and does not start with 0.').waitFor();
  // A PIN that the lookup knows fills in the city and the state.
  await pin.fill('560001');
  await form.getByText('Filled in from PIN code 560001: Bangalore, Karnataka.').waitFor();
  assert.is(await form.getByLabel('City or district').inputValue(), 'Bangalore');
  assert.is(await form.getByLabel('State or union territory').inputValue(), '29');
  // A refused field is named in words and marked.
  await form.getByLabel('GSTIN (optional)').fill('29AAGCB7383J1Z5');
  await form.getByRole('button', { name: 'Save address' }).click();
  await form.getByRole('alert').filter({ hasText: 'Check the GSTIN: not a valid GSTIN' }).waitFor();
  assert.is(await form.getByLabel('GSTIN (optional)').getAttribute('aria-invalid'), 'true');
  await form.getByLabel('GSTIN (optional)').fill('29AAGCB7383J1Z4');
  await form.getByRole('button', { name: 'Save address' }).click();
  await page.getByText('Billing address saved.').waitFor();
  await page.getByText('Karnataka (GST state code 29)').waitFor();
  const saved = (await billingJson(ctx)).address;
  assert.equal([saved.name, saved.city, saved.state_code, saved.pincode, saved.gstin], ['Asha Rao', 'Bangalore', '29', '560001', '29AAGCB7383J1Z4']);

  // A promo code is checked before paying: unknown ones in words, good ones with their bonus.
  const topUp = page.getByRole('form', { name: 'Top up' });
  await topUp.getByLabel('Promo code (optional)').fill('NOPE');
  await topUp.getByRole('button', { name: 'Check code' }).click();
  await topUp.getByRole('alert').filter({ hasText: 'That promo code does not exist, has expired or is used up.' }).waitFor();
  await topUp.getByLabel('Amount (₹)').fill('500');
  await topUp.getByLabel('Promo code (optional)').fill('welcome10');
  await topUp.getByRole('button', { name: 'Check code' }).click();
  await topUp.getByText('WELCOME10: 10% extra credit, ₹50.00 on this top-up, added free when you pay.').waitFor();
  await noViolations(page);
  await shot(page, 'dashboard-billing-topup');

  // The order, with its GST split for a Karnataka buyer of a Karnataka seller.
  await orderTopUp(page, '500', 'welcome10');
  const breakdown = page.getByRole('table', { name: /Your order/ });
  await breakdown.waitFor();
  const rows = await breakdown.locator('tr').allInnerTexts();
  assert.equal(rows.map((r) => r.replace(/\s+/g, ' ').trim()),
    ['Credit ₹500.00', 'CGST 9% ₹45.00', 'SGST 9% ₹45.00', 'To pay ₹590.00', 'Promo WELCOME10 +₹50.00 credit, free']);
  await noViolations(page);
  await shot(page, 'dashboard-billing-order');

  // Away to the provider's hosted checkout: a plain form post with what it needs.
  await toCheckout(page, '₹590.00');
  const posted = pay.checkouts.at(-1)!;
  const order = pay.orders.get(posted.order_id)!;
  assert.equal(posted, {
    key_id: PAY_KEY_ID, order_id: order.id, amount: '59000', currency: 'INR', name: SELLER, description: '₹500.00 of prepaid credit (promo WELCOME10)',
    'prefill[email]': OWNER, callback_url: `${gw.url}/billing/return`, cancel_url: `${gw.url}/billing?payment_cancelled=1`,
  });
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
  await page.getByRole('button', { name: 'Return to merchant' }).click();

  // Back on the billing page: verified, credited, and the ids gone from the address bar.
  const done = page.getByRole('status').filter({ hasText: 'Payment received: ₹500.00 credited.' });
  await done.waitFor();
  assert.match(await done.innerText(), /A promo bonus of ₹50\.00 was added too\. Your balance is now ₹550\.00\./);
  await page.waitForURL(gw.url + '/billing');
  await page.locator('.stat').filter({ hasText: 'Balance' }).filter({ hasText: '₹550.00' }).waitFor();
  const bill = await billingJson(ctx);
  assert.is(bill.balance_inr, 550);
  assert.equal(bill.money_events.map((e: any) => [e.kind, e.amount_inr]), [['promo_bonus', 50], ['payment', 500]]);
  const ledger = page.getByRole('region', { name: 'Money ledger', exact: true });
  await ledger.getByRole('cell', { name: 'Promo bonus' }).waitFor();
  await ledger.getByRole('cell', { name: '+₹500.00' }).waitFor();
  await page.getByRole('region', { name: 'Payments', exact: true }).getByText('Paid', { exact: true }).waitFor();
  await noViolations(page);
  await shot(page, 'dashboard-billing-credited');

  // The receipt opens in its own tab: server-rendered, printable, under its own strict policy.
  const [tab] = await Promise.all([ctx.waitForEvent('page'), done.getByRole('link', { name: 'Open the receipt' }).click()]);
  await tab.waitForLoadState();
  assert.is(new URL(tab.url()).pathname, `/me/billing/receipts/${bill.payments[0].id}`);
  await tab.close();
  const { page: receipt, problems: receiptProblems } = await watchedPage(ctx);
  const res = await receipt.goto(gw.url + bill.payments[0].receipt_url);
  assert.is(res!.status(), 200);
  await receipt.getByRole('heading', { name: 'Receipt' }).waitFor();
  const text = await receipt.locator('body').innerText();
  for (const s of ['CGST 9%', 'SGST 9%', '₹590.00', 'Asha Rao', 'Promo WELCOME10', SELLER, order.id]) assert.ok(text.includes(s), `the receipt shows ${s}`);
  await noViolations(receipt);
  await shot(receipt, 'dashboard-billing-receipt');
  assert.equal(receiptProblems.list, []);
  await receipt.close();

  // The overview shows the new balance too.
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Overview' }).click();
  await page.locator('.stat').filter({ hasText: 'Balance' }).filter({ hasText: '₹550.00' }).waitFor();
  assert.equal(owner.problems.list, []);
});

test('when the webhook comes first, the return still shows the credit, and the balance moves once', async () => {
  const { page, ctx } = owner;
  await page.goto(gw.url + '/billing');
  await orderTopUp(page, '100');
  await toCheckout(page, '₹118.00');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  const paymentId = await page.locator('#payment-id').innerText();
  const orderId = pay.checkouts.at(-1)!.order_id;
  const hook = await pay.webhook(gw.url, 'payment.captured', { id: paymentId, order_id: orderId, amount: 11_800, status: 'captured', method: 'upi' });
  assert.equal(await hook.json(), { status: 'credited' });
  assert.is((await billingJson(ctx)).balance_inr, 650);

  await page.getByRole('button', { name: 'Return to merchant' }).click();
  const done = page.getByRole('status').filter({ hasText: 'Payment received: ₹100.00 credited.' });
  await done.waitFor();
  assert.match(await done.innerText(), /Your balance is now ₹650\.00\./);
  await page.waitForURL(gw.url + '/billing');
  // The same return again (a reload, the back button): shown as credited, credited once.
  const signature = sign(PAY_KEY_SECRET, `${orderId}|${paymentId}`);
  await page.goto(`${gw.url}/billing?order_id=${orderId}&payment_id=${paymentId}&signature=${signature}`);
  await done.waitFor();
  const bill = await billingJson(ctx);
  assert.is(bill.balance_inr, 650);
  assert.equal(bill.money_events.filter((e: any) => e.kind === 'payment').map((e: any) => e.amount_inr), [100, 500]);
  assert.equal(owner.problems.list, []);
});

test('a failed, a cancelled and an unverifiable payment are each said in words; nothing is credited', async () => {
  const { page, ctx } = owner;
  await page.goto(gw.url + '/billing');
  await orderTopUp(page, '200');
  await toCheckout(page, '₹236.00');
  await page.getByRole('button', { name: 'Fail' }).click();
  await page.getByRole('heading', { name: 'Payment failed' }).waitFor();
  await page.getByRole('button', { name: 'Return to merchant' }).click();
  const failed = page.getByRole('alert').filter({ hasText: 'The payment did not go through.' });
  await failed.waitFor();
  assert.ok((await failed.innerText()).includes(`${CHECKOUT_FAILURE} Nothing was credited; you can try again.`));
  await page.waitForURL(gw.url + '/billing');
  assert.is((await billingJson(ctx)).balance_inr, 650);
  // The provider's webhook records the failure; the payments table shows it with its reason.
  const orderId = pay.checkouts.at(-1)!.order_id;
  const failure = pay.payments.get(orderId)!.at(-1)!;
  await pay.webhook(gw.url, 'payment.failed', { ...failure, error_description: CHECKOUT_FAILURE });
  await page.reload();
  const payments = page.getByRole('region', { name: 'Payments', exact: true });
  await payments.getByText('Failed', { exact: true }).waitFor();
  await payments.getByText(CHECKOUT_FAILURE).waitFor();

  // Leaving the checkout without paying.
  await orderTopUp(page, '100');
  await toCheckout(page, '₹118.00');
  await page.getByRole('link', { name: 'Cancel and go back' }).click();
  await page.getByRole('status').filter({ hasText: 'You left the checkout without paying. Nothing was charged.' }).waitFor();
  await page.waitForURL(gw.url + '/billing');

  // A return whose signature does not match is not credited, and says so.
  await page.goto(`${gw.url}/billing?order_id=${orderId}&payment_id=pay_forged&signature=${'0'.repeat(64)}`);
  const refused = page.getByRole('alert').filter({ hasText: 'The payment could not be confirmed.' });
  await refused.waitFor();
  assert.match(await refused.innerText(), /does not match this order and payment; nothing was credited\..*Payment reference: pay_forged/s);
  await page.waitForURL(gw.url + '/billing');
  assert.is((await billingJson(ctx)).balance_inr, 650);
  await noViolations(page);
  await shot(page, 'dashboard-billing-refused');
  assert.equal(owner.problems.list, []);
});

test('the low-balance alert is set, shown against the balance, and cleared', async () => {
  const { page, ctx } = owner;
  await page.goto(gw.url + '/billing');
  const form = page.getByRole('form', { name: 'Low-balance alert' });
  await form.getByText('No alert is set.').waitFor();
  await form.getByLabel('Email the owners below (₹)').fill('-5');
  await form.getByRole('button', { name: 'Save alert' }).click();
  await form.getByRole('alert').filter({ hasText: 'Enter an amount in rupees, 0 or more' }).waitFor();
  await form.getByLabel('Email the owners below (₹)').fill('1000');
  await form.getByRole('button', { name: 'Save alert' }).click();
  await form.getByText('Saved: the owners are emailed when the balance falls below ₹1,000.00.').waitFor();
  assert.is((await billingJson(ctx)).low_balance_inr, 1000);
  await page.reload();
  await page.locator('.stat').filter({ hasText: 'Balance' }).filter({ hasText: 'Below your ₹1,000.00 alert' }).waitFor();
  await page.locator('.stat').filter({ hasText: 'Low-balance alert' }).filter({ hasText: '₹1,000.00' }).waitFor();
  await noViolations(page);
  await shot(page, 'dashboard-billing-alert');
  await page.getByRole('form', { name: 'Low-balance alert' }).getByRole('button', { name: 'Turn off' }).click();
  await page.getByText('Low-balance alert turned off.').waitFor();
  await page.locator('.stat').filter({ hasText: 'Low-balance alert' }).filter({ hasText: 'Off' }).waitFor();
  assert.is((await billingJson(ctx)).low_balance_inr, null);
  assert.equal(owner.problems.list, []);
});

test('the dark theme and the 390 px phone layout: nothing overflows, no violations', async () => {
  const { ctx, page, problems } = await signedIn(browser, gw, OWNER, { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  await page.goto(gw.url + '/billing');
  await page.getByRole('region', { name: 'Money ledger', exact: true }).getByRole('cell', { name: 'Promo bonus' }).waitFor();
  assert.is(await page.evaluate('document.documentElement.scrollWidth'), 390, 'no sideways scrolling of the page');
  await noViolations(page);
  await shot(page, 'dashboard-billing-phone-dark');
  await orderTopUp(page, '300');
  await page.getByRole('table', { name: /Your order/ }).waitFor();
  assert.is(await page.evaluate('document.documentElement.scrollWidth'), 390);
  await noViolations(page);
  await shot(page, 'dashboard-billing-order-phone-dark');
  assert.equal(problems.list, []);
  await ctx.close();
});

test('a gateway without a payment provider: the page says top-ups are not available instead of a form', async () => {
  const { ctx, page, problems } = await signedIn(browser, gw, 'nopay@billing.example');
  await skipSurvey(page);
  // This gateway has a provider; the answer of one without it (topups.enabled false) is given to the page.
  await page.route('**/me/billing', async (route) => {
    const real = await route.fetch();
    const body = await real.json();
    await route.fulfill({ response: real, json: { ...body, topups: { ...body.topups, enabled: false, key_id: null, checkout_url: null } } });
  });
  await page.goto(gw.url + '/billing');
  await page.getByRole('status').filter({ hasText: 'Top-ups are not available on this gateway.' }).waitFor();
  assert.is(await page.getByRole('form', { name: 'Top up' }).count(), 0);
  assert.is(await page.getByRole('button', { name: /Continue to payment/ }).count(), 0);
  await page.getByRole('form', { name: 'Billing address' }).waitFor();
  await noViolations(page);
  await shot(page, 'dashboard-billing-disabled');
  assert.equal(problems.list, []);
  await ctx.close();
});

test('an admin of a team org sees no Billing page: it is the owners\'', async () => {
  const teamOwner = await signIn(gw, 'lead@billing.example');
  const team = await (await teamOwner.send('POST', '/me/orgs', { name: 'Payers' })).json() as { id: string };
  await teamOwner.send('POST', '/me/orgs/switch', { org_id: team.id });
  const inv = await (await teamOwner.send('POST', '/me/members', { email: 'admin@billing.example', role: 'admin' })).json() as { id: string };
  const { ctx, page, problems } = await signedIn(browser, gw, 'admin@billing.example');
  await skipSurvey(page);
  const headers = { origin: gw.url };
  assert.is((await ctx.request.post(`${gw.url}/me/invitations/${inv.id}/accept`, { headers })).status(), 200);
  assert.is((await ctx.request.post(`${gw.url}/me/orgs/switch`, { headers, data: { org_id: team.id } })).status(), 200);
  await page.goto(gw.url + '/billing');
  await page.getByText('This page needs the owner role in Payers.').waitFor();
  assert.is(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Billing' }).count(), 0);
  assert.equal(problems.list, []);
  await ctx.close();
});

test.run();
