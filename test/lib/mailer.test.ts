// The mailer against real SMTP servers on 127.0.0.1: smtp-server (test/support/smtp-receiver.ts),
// plain, with STARTTLS and AUTH, and a relay that answers with bare reply codes. Every relay gets
// a timeout far longer than the test allows, so a client that waited for it would fail here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createMailer, type Mailer, type SmtpSettings } from '../../src/lib/mailer.js';
import { startSmtpReceiver } from '../support/smtp-receiver.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
const CERT = readFileSync(FIXTURES + 'localhost-cert.pem');
const KEY = readFileSync(FIXTURES + 'localhost-key.pem');
/** Far longer than PROMPT_MS: a delivery that waits for the relay's silence cannot pass. */
const SILENCE_MS = 60_000;
const PROMPT_MS = 5_000;

const settings = (port: number, more: Partial<SmtpSettings> = {}): SmtpSettings =>
  ({ host: '127.0.0.1', port, secure: false, starttls: 'auto', from: 'gw@mail.example', timeoutMs: SILENCE_MS, ...more });

/** Sends one message and fails the test if it takes PROMPT_MS or more. */
async function sendPromptly(mailer: Mailer, to: string, subject: string, text: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the mail was not delivered within ${PROMPT_MS} ms`)), PROMPT_MS);
  });
  try {
    await Promise.race([mailer.send(to, subject, text), late]);
  } finally {
    clearTimeout(timer);
  }
}

test('no relay configured: no mailer', () => {
  assert.is(createMailer({ ...settings(25), host: undefined }), null);
});

test('a message is delivered at once, its ₹ subject and body intact, from the configured sender', async () => {
  const relay = await startSmtpReceiver();
  try {
    const mailer = createMailer(settings(relay.port))!;
    await sendPromptly(mailer, 'owner@org.example', '[gw] Balance ₹40.00 is below ₹50.00', 'Your balance is ₹40.00.\nTop up at http://gw.example/billing\n');
    assert.is(relay.raw.length, 1, 'accepted by the relay before send() resolved');
    const [mail] = relay.decoded();
    assert.match(mail, /^From: gw@mail\.example$/m);
    assert.match(mail, /^To: owner@org\.example$/m);
    assert.ok(mail.includes('Subject: [gw] Balance ₹40.00 is below ₹50.00'), mail);
    assert.ok(mail.includes('Your balance is ₹40.00.\nTop up at http://gw.example/billing'), mail);
    assert.equal(relay.sessions, [{ secure: false, user: null }]);
  } finally {
    await relay.close();
  }
});

test('STARTTLS and AUTH: the upgrade is verified, the password goes over TLS, and the mail is delivered at once', async () => {
  const relay = await startSmtpReceiver({ tls: { cert: CERT, key: KEY }, auth: { user: 'relay-user', password: 'relay-pass' } });
  try {
    const mailer = createMailer(settings(relay.port, { host: 'localhost', user: 'relay-user', password: 'relay-pass' }), { ca: CERT })!;
    await sendPromptly(mailer, 'owner@org.example', 'over TLS', 'hello');
    await sendPromptly(mailer, 'admin@org.example', 'over TLS again', 'hello');
    assert.equal(relay.sessions, [{ secure: true, user: 'relay-user' }, { secure: true, user: 'relay-user' }], 'one session per message');
  } finally {
    await relay.close();
  }
});

test('a relay whose certificate cannot be verified gets no mail; the error names STARTTLS', async () => {
  const relay = await startSmtpReceiver({ tls: { cert: CERT, key: KEY } });
  try {
    const mailer = createMailer(settings(relay.port, { host: 'localhost' }))!;
    const e = await mailer.send('owner@org.example', 'x', 'y').then(() => null, (err: Error) => err);
    assert.match(String(e?.message), /STARTTLS/, String(e?.message));
    assert.is(relay.raw.length, 0);
  } finally {
    await relay.close();
  }
});

test('starttls required refuses a relay without it; a wrong password is refused by the relay, saying so', async () => {
  const relay = await startSmtpReceiver({ auth: { user: 'relay-user', password: 'relay-pass' } });
  try {
    const required = createMailer(settings(relay.port, { starttls: 'required' }))!;
    const e1 = await required.send('owner@org.example', 'x', 'y').then(() => null, (err: Error) => err);
    assert.match(String(e1?.message), /does not offer STARTTLS, and smtp\.starttls is 'required'/);
    const wrong = createMailer(settings(relay.port, { user: 'relay-user', password: 'nope' }))!;
    const e2 = await wrong.send('owner@org.example', 'x', 'y').then(() => null, (err: Error) => err);
    assert.match(String(e2?.message), new RegExp(`SMTP AUTH PLAIN with 127\\.0\\.0\\.1:${relay.port} failed: .*535`));
    assert.is(relay.raw.length, 0);
    const right = createMailer(settings(relay.port, { user: 'relay-user', password: 'relay-pass' }))!;
    await sendPromptly(right, 'owner@org.example', 'x', 'y');
    assert.equal(relay.sessions, [{ secure: false, user: 'relay-user' }], 'a relay on this host may take the password in clear');
  } finally {
    await relay.close();
  }
});

test('a password is not sent in clear to a relay off this host, unless starttls is off', async () => {
  const relay = await startSmtpReceiver({ auth: { user: 'relay-user', password: 'relay-pass' } });
  // `127.1` reaches this host but is not a name the mailer knows as loopback: it stands for a relay elsewhere.
  const elsewhere = { host: '127.1', user: 'relay-user', password: 'relay-pass' };
  try {
    const e = await createMailer(settings(relay.port, elsewhere))!.send('owner@org.example', 'x', 'y').then(() => null, (err: Error) => err);
    assert.match(String(e?.message), /offers no TLS: the password is not sent in clear/);
    assert.equal([relay.raw.length, relay.sessions], [0, []]);
    await sendPromptly(createMailer(settings(relay.port, { ...elsewhere, starttls: 'off' }))!, 'owner@org.example', 'x', 'y');
    assert.equal(relay.sessions, [{ secure: false, user: 'relay-user' }]);
  } finally {
    await relay.close();
  }
});

/**
 * A relay that answers every command with its bare code and no text ("250"), which RFC 5321
 * (4.2, `Reply-line`) allows: the hand-written client this mailer replaced waited for its timeout
 * on such a reply.
 */
async function terseRelay(): Promise<{ port: number; messages: string[]; close(): Promise<void> }> {
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    let buffered = '';
    let inData = false;
    socket.write('220\r\n');
    socket.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffered.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(buffered.slice(0, end));
          buffered = buffered.slice(end + 5);
          inData = false;
          socket.write('250\r\n');
          continue;
        }
        const eol = buffered.indexOf('\r\n');
        if (eol < 0) return;
        const verb = buffered.slice(0, eol).split(' ')[0].toUpperCase();
        buffered = buffered.slice(eol + 2);
        if (verb === 'DATA') {
          inData = true;
          socket.write('354\r\n');
        } else if (verb === 'QUIT') socket.end('221\r\n');
        else socket.write('250\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    messages,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('a relay that answers with bare reply codes ("250") gets the mail at once', async () => {
  const relay = await terseRelay();
  try {
    await sendPromptly(createMailer(settings(relay.port))!, 'owner@org.example', 'terse', 'hello');
    assert.is(relay.messages.length, 1);
    assert.match(relay.messages[0], /^Subject: terse$/m);
  } finally {
    await relay.close();
  }
});

test('a relay that never answers fails the mail after the configured silence, naming the relay', async () => {
  const held = new Set<Socket>();
  const silent = createServer((s) => held.add(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as AddressInfo).port;
  try {
    const e = await createMailer(settings(port, { timeoutMs: 200 }))!.send('owner@org.example', 'x', 'y').then(() => null, (err: Error) => err);
    assert.match(String(e?.message), new RegExp(`SMTP server 127\\.0\\.0\\.1:${port} did not answer within 200 ms`));
  } finally {
    for (const s of held) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test.run();
