import type { Logger } from '../../lib/logger.js';
import type { Mailer } from '../../lib/mailer.js';

export interface InvitationNotice {
  id: string;
  email: string;
  role: string;
  orgName: string;
  invitedBy: string;
}

/**
 * Tells the invitee, when a mail relay is configured (smtp.host), that an invitation waits: who
 * invited them, to which org and role, and where to accept it. Sent after the invitation is
 * saved and not awaited: a relay that is slow or down must not fail the invite, which stands and
 * is listed in GET /me/invitations either way; a failure is logged.
 */
export function mailInvitation(d: { mailer: Mailer | null; log: Logger; baseUrl: string }, inv: InvitationNotice): void {
  if (d.mailer === null) return;
  const base = d.baseUrl;
  const subject = `[gw] ${inv.invitedBy} invited you to ${inv.orgName}`;
  const text = `${inv.invitedBy} invited you to join the organisation "${inv.orgName}" on ${base} as ${inv.role}.\n\n`
    + `Sign in as ${inv.email}, then accept:\n`
    + `  POST ${base}/me/invitations/${encodeURIComponent(inv.id)}/accept\n`
    + `or decline:\n`
    + `  POST ${base}/me/invitations/${encodeURIComponent(inv.id)}/decline\n\n`
    + `Your pending invitations: ${base}/me/invitations\n`
    + `If you did not expect this, ignore this mail: nothing happens until you accept.\n`;
  d.mailer.send(inv.email, subject, text)
    .catch((e: unknown) => d.log.warn('invitation not mailed', { invitation: inv.id, to: inv.email, err: (e as Error).message }));
}
