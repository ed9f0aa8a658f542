import { connect as tcp, type Socket } from 'node:net';
import { connect as tls } from 'node:tls';

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise plain SMTP, upgraded by STARTTLS per `starttls`. */
  secure: boolean;
  /** auto: upgrade when the relay offers it; required: fail if it does not; off: never (a relay on this host). */
  starttls: 'auto' | 'required' | 'off';
  from: string;
  user?: string;
  password?: string;
  timeoutMs: number;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1|\[::1\])$/i;

/**
 * Sends one plain-text message over SMTP (RFC 5321): EHLO, STARTTLS (RFC 3207) when offered or
 * required, AUTH PLAIN when a user is set, MAIL, RCPT, DATA with dot-stuffing, QUIT. Certificates
 * are verified (NODE_EXTRA_CA_CERTS adds a private CA), and a password is never sent in clear to
 * a relay off this host. Rejects with the server's reply when a step is refused, or when the
 * server is silent past the timeout.
 */
export async function sendMail(s: SmtpSettings, to: string, subject: string, text: string): Promise<void> {
  let socket: Socket = s.secure ? tls({ host: s.host, port: s.port, servername: s.host }) : tcp({ host: s.host, port: s.port });
  let encrypted = s.secure;
  let buffer = '';
  let waiting: { resolve: (line: string) => void; reject: (e: Error) => void } | null = null;
  let failed: Error | null = null;
  const fail = (e: Error): void => {
    failed ??= e;
    waiting?.reject(e);
    waiting = null;
  };
  const onData = (d: Buffer): void => {
    buffer += d.toString('latin1');
    // A reply ends at a line whose code is followed by a space ("250 ok"), not a dash ("250-…").
    const m = /(^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buffer);
    if (m && waiting) {
      const reply = buffer;
      buffer = '';
      waiting.resolve(reply);
      waiting = null;
    }
  };
  const onClose = (): void => fail(new Error('SMTP connection closed'));
  const watch = (sock: Socket): void => {
    sock.setTimeout(s.timeoutMs);
    sock.on('data', onData);
    sock.on('timeout', () => fail(new Error(`SMTP server ${s.host}:${s.port} did not answer within ${s.timeoutMs} ms`)));
    sock.on('error', fail);
    sock.on('close', onClose);
  };
  watch(socket);
  const reply = (expect: number[], command?: string): Promise<string> => new Promise((resolve, reject) => {
    if (failed) {
      reject(failed);
      return;
    }
    waiting = {
      resolve: (r) => {
        const lines = r.trimEnd().split('\r\n');
        const code = Number(lines[lines.length - 1].slice(0, 3));
        if (expect.includes(code)) resolve(r);
        else reject(new Error(`SMTP ${command?.split(' ')[0] ?? 'greeting'} refused: ${r.trim().slice(0, 200)}`));
      },
      reject,
    };
    if (command !== undefined) socket.write(`${command}\r\n`);
  });
  try {
    await reply([220]);
    let ehlo = await reply([250], 'EHLO gw');
    if (!encrypted && s.starttls !== 'off') {
      if (/^250[ -]STARTTLS\s*$/im.test(ehlo)) {
        await reply([220], 'STARTTLS');
        socket = await upgrade(socket, s.host, onClose);
        encrypted = true;
        watch(socket);
        ehlo = await reply([250], 'EHLO gw');
      } else if (s.starttls === 'required') {
        throw new Error(`SMTP server ${s.host}:${s.port} does not offer STARTTLS, and smtp.starttls is 'required'`);
      }
    }
    if (s.user) {
      if (!encrypted && s.starttls !== 'off' && !LOOPBACK.test(s.host)) {
        throw new Error(`SMTP server ${s.host}:${s.port} offers no TLS: the password is not sent in clear (use smtp.secure, or smtp.starttls 'off' to allow it)`);
      }
      await reply([235], `AUTH PLAIN ${Buffer.from(`\0${s.user}\0${s.password ?? ''}`).toString('base64')}`);
    }
    await reply([250], `MAIL FROM:<${s.from}>`);
    await reply([250, 251], `RCPT TO:<${to}>`);
    await reply([354], 'DATA');
    // Headers must be ASCII (RFC 5322): a subject with ₹ goes as an RFC 2047 encoded word, and
    // a body with any non-ASCII character as base64, which every relay passes through unchanged.
    const ascii = (v: string) => /^[\x20-\x7e\r\n\t]*$/.test(v);
    const subjectLine = ascii(subject) ? subject : `=?UTF-8?B?${Buffer.from(subject).toString('base64')}?=`;
    const plain = ascii(text);
    const body = plain ? text.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..')
      : Buffer.from(text.replace(/\r?\n/g, '\r\n')).toString('base64').replace(/.{76}/g, '$&\r\n');
    const message = `From: ${s.from}\r\nTo: ${to}\r\nSubject: ${subjectLine}\r\nDate: ${new Date().toUTCString()}\r\nMIME-Version: 1.0\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: ${plain ? '7bit' : 'base64'}\r\n\r\n${body}\r\n.`;
    await reply([250], message);
    await reply([221], 'QUIT').catch(() => undefined);
  } finally {
    socket.destroy();
  }
}

/** TLS over the open connection after the server's 220 to STARTTLS; the plain socket is handed over. */
function upgrade(plain: Socket, host: string, onClose: () => void): Promise<Socket> {
  plain.removeAllListeners('data');
  plain.removeAllListeners('timeout');
  plain.off('close', onClose);
  return new Promise((resolve, reject) => {
    const secure = tls({ socket: plain, servername: host });
    secure.once('secureConnect', () => {
      secure.off('error', reject);
      resolve(secure);
    });
    secure.once('error', (e) => reject(new Error(`SMTP STARTTLS with ${host} failed: ${e.message}`)));
  });
}
