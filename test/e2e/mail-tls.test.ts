// Mail to a relay that offers STARTTLS and wants a password (the usual port 587 set-up): the
// gateway upgrades, verifies the certificate, then authenticates. Driven by the low-balance mail.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { signIn } from '../support/session.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { waitFor } from '../support/wait.js';

const FIXTURES = new URL('../../../test/fixtures/', import.meta.url).pathname;
const CERT_FILE = FIXTURES + 'localhost-cert.pem';
const tls = { cert: readFileSync(CERT_FILE), key: readFileSync(FIXTURES + 'localhost-key.pem') };
const auth = { user: 'relay-user', password: 'relay-pass' };
let relay: SmtpReceiver;
let plainRelay: SmtpReceiver;

test.before(async () => {
  [relay, plainRelay] = await Promise.all([startSmtpReceiver({ tls, auth }), startSmtpReceiver({ auth })]);
});
test.after(async () => {
  await Promise.all([relay.close(), plainRelay.close()]);
});

/** A gateway mailing through `port`; a low threshold over a small balance sends one mail to the owner. */
async function lowBalanceMail(port: number, smtp: Record<string, unknown>, env: Record<string, string> = {}): Promise<{ gw: GatewayProcess; email: string }> {
  const gw = await startGateway({
    smtp: { host: 'localhost', port, from: 'billing@gw.example', user: auth.user, password: auth.password, ...smtp },
    billing: { lowBalanceCheckMs: 100 },
  }, env);
  const email = `owner-${Math.random().toString(36).slice(2, 8)}@mail.example`;
  const b = await signIn(gw, email);
  await gw.cli('org', 'credit', (await (await b.get('/me')).json() as any).org.id, '1');
  assert.is((await b.send('POST', '/me/billing/settings', { low_balance_inr: 10 })).status, 200);
  return { gw, email };
}

test('STARTTLS is used when offered: the certificate is verified, then the password goes over TLS', async () => {
  const { gw, email } = await lowBalanceMail(relay.port, {}, { NODE_EXTRA_CA_CERTS: CERT_FILE });
  try {
    await waitFor(() => relay.raw.some((m) => m.includes(`To: ${email}`)), 5_000, 'the mail');
    assert.equal(relay.sessions.at(-1), { secure: true, user: auth.user });
  } finally {
    await gw.cleanup();
  }
});

test('a certificate the gateway cannot verify stops the mail instead of sending it unprotected', async () => {
  const before = relay.raw.length;
  const { gw } = await lowBalanceMail(relay.port, {});
  try {
    await waitFor(() => gw.lines.some((l) => l.includes('low-balance mail not sent') && l.includes('STARTTLS')), 5_000, 'the refusal in the log');
    assert.is(relay.raw.length, before);
  } finally {
    await gw.cleanup();
  }
});

test('starttls required: a relay without it is refused; off: plain SMTP with the password, as configured', async () => {
  const { gw } = await lowBalanceMail(plainRelay.port, { starttls: 'required' });
  try {
    await waitFor(() => gw.lines.some((l) => l.includes('does not offer STARTTLS')), 5_000, 'the refusal in the log');
    assert.is(plainRelay.raw.length, 0);
  } finally {
    await gw.cleanup();
  }
  const off = await lowBalanceMail(plainRelay.port, { starttls: 'off' });
  try {
    await waitFor(() => plainRelay.raw.some((m) => m.includes(`To: ${off.email}`)), 5_000, 'the plain mail');
    assert.equal(plainRelay.sessions.at(-1), { secure: false, user: auth.user });
  } finally {
    await off.gw.cleanup();
  }
});

test.run();
