import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on loopback that keeps every message it accepts. */
export interface SmtpReceiver {
  port: number;
  /** Each message as received: headers and body, undecoded. */
  raw: string[];
  /** Each message with an RFC 2047 subject and a base64 body decoded to text. */
  decoded(): string[];
  close(): Promise<void>;
}

function decode(raw: string): string {
  const cut = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, cut);
  const rest = raw.slice(cut + 4);
  const headers = head.replace(/=\?UTF-8\?B\?([^?]*)\?=/g, (_, b64: string) => Buffer.from(b64, 'base64').toString('utf8'));
  const body = /Content-Transfer-Encoding: base64/i.test(head) ? Buffer.from(rest.replace(/\s+/g, ''), 'base64').toString('utf8') : rest;
  return `${headers}\r\n\r\n${body}`;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const raw: string[] = [];
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onData(stream, _session, done) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
      stream.on('end', () => {
        raw.push(text);
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    raw,
    decoded: () => raw.map(decode),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
