import { createTransport } from 'nodemailer';

/** The `smtp` settings of the configuration, as the mailer reads them. */
export interface SmtpSettings {
  /** Without a host there is no relay, and no mailer. */
  host?: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise plain SMTP, upgraded by STARTTLS per `starttls`. */
  secure: boolean;
  /** auto: upgrade when the relay offers it; required: fail if it does not; off: never (a relay on this host). */
  starttls: 'auto' | 'required' | 'off';
  from: string;
  user?: string;
  password?: string;
  /** How long the relay may stay silent at any step of a delivery. */
  timeoutMs: number;
}

/** Sends the gateway's mail (invitations, payment confirmations, low-balance and alert mail). */
export interface Mailer {
  /** One plain-text message; rejects with the relay's reason when it refuses or stays silent past the timeout. */
  send(to: string, subject: string, text: string): Promise<void>;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1|\[::1\])$/i;
/** Node's codes for a TLS handshake or certificate check that failed (DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID…). */
const TLS_FAILURE = /CERT|SSL|TLS|VERIFY/;

/**
 * The mailer for these settings, or null without a relay (smtp.host): nodemailer's SMTP transport,
 * one connection per message (a few mails an hour need no pool). Certificates are verified (the
 * system's roots, NODE_EXTRA_CA_CERTS for a private CA; `ca` replaces them, for tests). A password
 * is never sent in clear to a relay off this host: with starttls 'auto' and a user, STARTTLS is
 * then required, unless TLS is already there (secure) or the operator turned it off.
 */
export function createMailer(s: SmtpSettings, options: { ca?: string | Buffer } = {}): Mailer | null {
  if (s.host === undefined) return null;
  const where = `${s.host}:${s.port}`;
  const guardsPassword = s.user !== undefined && !s.secure && s.starttls === 'auto' && !LOOPBACK.test(s.host);
  const transport = createTransport({
    host: s.host,
    port: s.port,
    secure: s.secure,
    requireTLS: s.starttls === 'required' || guardsPassword,
    ignoreTLS: s.starttls === 'off',
    auth: s.user === undefined ? undefined : { user: s.user, pass: s.password ?? '' },
    connectionTimeout: s.timeoutMs,
    greetingTimeout: s.timeoutMs,
    socketTimeout: s.timeoutMs,
    dnsTimeout: s.timeoutMs,
    tls: options.ca === undefined ? undefined : { ca: options.ca },
  }, {
    from: s.from,
    // Subjects and bodies with any non-ASCII character (₹) as base64 rather than quoted-printable:
    // every relay passes it through unchanged, and it is what this gateway has always sent.
    textEncoding: 'base64',
  });

  /** The relay's failure as an operator reads it in the log, naming the relay and the step. */
  const explain = (e: unknown): Error => {
    const err = e as Error & { code?: string; originalCode?: string; command?: string; response?: string };
    if (err.code === 'ETIMEDOUT') return new Error(`SMTP server ${where} did not answer within ${s.timeoutMs} ms (${err.message})`);
    // Under requireTLS the client asks for STARTTLS even when it is not offered, and a reply
    // (rather than a failed handshake) means the relay would not upgrade.
    if (err.code === 'ETLS' && err.command === 'STARTTLS' && err.response !== undefined) {
      return new Error(guardsPassword
        ? `SMTP server ${where} offers no TLS: the password is not sent in clear (use smtp.secure, or smtp.starttls 'off' to allow it); it answered ${err.response.slice(0, 200)}`
        : `SMTP server ${where} does not offer STARTTLS, and smtp.starttls is 'required'; it answered ${err.response.slice(0, 200)}`);
    }
    // A failed handshake reaches us as a socket error of the connection; on a plain connection
    // the only TLS there is is the STARTTLS upgrade.
    if (err.code === 'ETLS' || TLS_FAILURE.test(err.originalCode ?? '')) {
      return new Error(`SMTP ${s.secure ? 'TLS' : 'STARTTLS'} with ${where} failed: ${err.message}`);
    }
    const step = err.command === undefined || err.command === 'CONN' ? 'connection' : err.command;
    return new Error(`SMTP ${step} with ${where} failed: ${err.message}`);
  };

  return {
    async send(to, subject, text) {
      try {
        await transport.sendMail({ to, subject, text });
      } catch (e) {
        throw explain(e);
      }
    },
  };
}
