/**
 * The account e-mails of the dashboard (docs/dashboard.md): an invitation to join an
 * organizer's team and a password reset. They go through the same durable jobs as an
 * order's mails (src/mail/jobs.ts sends them) and appear in the same mail log, an
 * invitation under its organizer; a reset belongs to a user and to no organizer's log.
 *
 * The one-time link a mail carries exists nowhere else in clear (the database keeps only
 * its hash): the job holds it until the mail is sent or has finally failed, then the
 * job's `link` is erased in the same UPDATE that records the outcome.
 */
import { insertEmailJobs, type EmailJobRow } from '../db/repositories/emails.ts';
import type { Language } from '../i18n/index.ts';
import type { Executor } from '../db/transaction.ts';
import type { RenderRequest } from './render-task.ts';
import { EMAIL_MAX_ATTEMPTS } from './retry-policy.ts';
import { accountRole, invitationSubject, PASSWORD_RESET_SUBJECT } from './templates.ts';

type AccountEmailKind = 'invitation' | 'password_reset';

/** An account e-mail to queue. */
interface AccountEmail {
  kind: AccountEmailKind;
  /** The organizer an invitation is to; null for a password reset, which is a user's. */
  organizerId: string | null;
  recipient: string;
  /** The single-use link the mail carries (docs/dashboard.md, "One-time links"). */
  link: string;
  /**
   * What the mail says besides its link: for an invitation `{organizer_name, inviter_name,
   * role}` (the role's code, `box_office`, or its words, `box office`), for a reset `{name}`.
   */
  data: Record<string, string>;
}

/** The keys each kind's `data` has, no more, no fewer. */
const DATA_KEYS: Record<AccountEmailKind, readonly string[]> = {
  invitation: ['organizer_name', 'inviter_name', 'role'],
  password_reset: ['name'],
};

/**
 * Queues an invitation or a password reset in the caller's transaction (the one that
 * stores the link's hash), so the mail goes out once that transaction commits and never
 * if it rolls back. Throws on a malformed mail: an invitation without its organizer, a
 * reset with one, data with missing or unknown keys, or an unknown role.
 */
export async function enqueueAccountEmail(trx: Executor, mail: AccountEmail, now: Date): Promise<void> {
  checkData(mail.kind, mail.data);
  if ((mail.kind === 'invitation') !== (mail.organizerId !== null)) {
    throw new Error(
      mail.kind === 'invitation' ? 'an invitation needs its organizer' : 'a password reset belongs to no organizer',
    );
  }
  await insertEmailJobs(trx, [
    {
      organizer_id: mail.organizerId,
      order_id: null,
      kind: mail.kind,
      recipient: mail.recipient,
      subject: mail.kind === 'invitation' ? invitationSubject(mail.data.organizer_name!) : PASSWORD_RESET_SUBJECT,
      link: mail.link,
      account_data: JSON.stringify(mail.data),
      max_attempts: EMAIL_MAX_ATTEMPTS,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    },
  ]);
}

function checkData(
  kind: AccountEmailKind,
  data: Record<string, string> | null,
): asserts data is Record<string, string> {
  const expected = DATA_KEYS[kind];
  const keys = Object.keys(data ?? {});
  if (!data || keys.length !== expected.length || !expected.every((k) => typeof data[k] === 'string')) {
    throw new Error(`${kind} e-mail data must have exactly ${expected.join(', ')} (has ${keys.join(', ') || 'none'})`);
  }
  if (kind === 'invitation' && accountRole(data.role!) === undefined) throw new Error(`unknown role ${data.role}`);
}

/**
 * What an account mail's job renders: its link and the data queued with it, nothing else,
 * in `language` (docs/tickets.md, "Languages": an invitation speaks its organizer's
 * default language, a password reset English).
 */
export function accountMailRequest(job: EmailJobRow, kind: AccountEmailKind, language: Language): RenderRequest {
  if (job.link === null) throw new Error(`${kind} e-mail job ${job.id} has no link`);
  const data = job.account_data;
  checkData(kind, data);
  if (kind === 'password_reset') {
    return { kind, input: { language, to: job.recipient, link: job.link, name: data.name! } };
  }
  return {
    kind,
    input: {
      language,
      to: job.recipient,
      link: job.link,
      organizerName: data.organizer_name!,
      inviterName: data.inviter_name!,
      role: accountRole(data.role!)!,
    },
  };
}
