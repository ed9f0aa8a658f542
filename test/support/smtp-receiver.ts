import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback that keeps every message it accepts. */
export interface SmtpReceiver {
  port: number;
  /** Per message: whether it came over TLS, and the user that authenticated (null for none). */
  sessions: { secure: boolean; user: string | null }[];
  /** Each message as received: headers and body, undecoded. */
  raw: string[];
  /** Each message as a person reads it (headers unfolded, encoded words and the body decoded). */
  decoded(): string[];
  close(): Promise<void>;
}

/**
 * A message as a person reads it: header lines unfolded (RFC 5322 2.2.3), RFC 2047 encoded words
 * decoded (adjacent ones joined, the space between them dropped), and a base64 or
 * quoted-printable body decoded to text.
 */
function decode(raw: string): string {
  const cut = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, cut).replace(/\r\n([ \t])/g, '$1');
  const rest = raw.slice(cut + 4);
  const headers = head.replace(/(\?=)[ \t]+(?==\?)/g, '$1').replace(/=\?UTF-8\?([BQ])\?([^?]*)\?=/gi, (_, how: string, text: string) =>
    (how.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : qp(text.replace(/_/g, ' '))).toString('utf8'));
  const encoding = /^Content-Transfer-Encoding:\s*(\S+)/im.exec(head)?.[1].toLowerCase();
  const body = encoding === 'base64' ? Buffer.from(rest.replace(/\s+/g, ''), 'base64').toString('utf8')
    : encoding === 'quoted-printable' ? qp(rest.replace(/=\r\n/g, '')).toString('utf8') : rest;
  return `${headers}\r\n\r\n${body}`;
}

/** Quoted-printable bytes (`=E2=82=B9`) back to the bytes they stand for. */
function qp(text: string): Buffer {
  return Buffer.from(text.replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1');
}

export interface SmtpReceiverOptions {
  /** Offer STARTTLS with this certificate; without it, STARTTLS is not offered. */
  tls?: { key: Buffer; cert: Buffer };
  /** Require AUTH with this user and password (allowed over plain text too, as some relays do). */
  auth?: { user: string; password: string };
}

export async function startSmtpReceiver(opts: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const raw: string[] = [];
  const sessions: { secure: boolean; user: string | null }[] = [];
  const server = new SMTPServer({
    logger: false,
    authOptional: opts.auth === undefined,
    allowInsecureAuth: true,
    authMethods: ['PLAIN'],
    disabledCommands: opts.tls ? [] : ['STARTTLS'],
    ...(opts.tls ?? {}),
    onAuth(auth, _session, done) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.password) done(null, { user: auth.username });
      else done(new Error('Invalid username or password'));
    },
    onData(stream, session, done) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
      stream.on('end', () => {
        raw.push(text);
        sessions.push({ secure: session.secure, user: typeof session.user === 'string' ? session.user : null });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    sessions,
    raw,
    decoded: () => raw.map(decode),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
