/**
 * The buyer's e-mails and the account e-mails as durable jobs (docs/orders.md, "E-mail"):
 *
 * - enqueueOrderEmails() writes `email_jobs` rows in the order's own transaction, so a
 *   committed sale always has its mails queued and a rolled-back one never sends.
 * - enqueueAccountEmail() (src/mail/account-mail.ts) does the same for an invitation or a
 *   password reset, in the transaction that stores its one-time link; the job keeps the
 *   link only until the mail is sent or has finally failed (then `link` is NULL).
 * - runEmailJobsOnce() claims due jobs (FOR UPDATE SKIP LOCKED, a lease in locked_until),
 *   renders them from the database as it is now, sends through the Mailer, and records
 *   status, attempts, last_error and sent_at. A failure is retried with backoff until
 *   max_attempts, then `failed`. A mail failure never touches the sale.
 * - Once the e-ticket mail is first delivered: `ticket.issued`, orders.etickets_sent_at,
 *   and a `placed` order becomes `fulfilled`, all in one transaction with the job's
 *   `sent`. A resent e-ticket mail (enqueueEticketsResend) changes none of them.
 */
import type { Executor } from '../db/transaction.ts';
import { withTransaction } from '../db/transaction.ts';
import type { Db } from '../db/client.ts';
import { findOrganizer } from '../db/repositories/organizers.ts';
import type { OrderRow } from '../db/repositories/orders.ts';
import {
  claimEmailJobs,
  findReceiptLines,
  finishEmailJob,
  insertEmailJobs,
  type EmailJobRow,
} from '../db/repositories/emails.ts';
import { findOrderById, findTransactionsOfOrders, markEticketsSent } from '../db/repositories/orders.ts';
import { loadAppleSigner } from '../documents/apple-signer.ts';
import { loadGoogleSigner } from '../documents/google-signer.ts';
import { loadOrderDocuments } from '../documents/load.ts';
import { DEFAULT_LANGUAGE, languageOf, type Language } from '../i18n/index.ts';
import type { MailRenderer } from './render-pool.ts';
import type { RenderedMail, RenderRequest } from './render-task.ts';
import { accountMailRequest } from './account-mail.ts';
import { EMAIL_MAX_ATTEMPTS, EMAIL_RETRY_DELAYS_MS } from './retry-policy.ts';
import type { Mailer } from './transport.ts';
import { emailSends } from '../metrics/registry.ts';
import { emitDomainEvent } from '../outbox/domain-events.ts';

type OrderEmailKind = 'receipt' | 'etickets';

export { EMAIL_RETRY_DELAYS_MS };
const EMAIL_LEASE_MS = 2 * 60_000;
const TICKET_IDS_CAP = 100;

function emailSubject(kind: OrderEmailKind, orderNo: string): string {
  return kind === 'receipt' ? `Your receipt for order ${orderNo}` : `Your tickets for order ${orderNo}`;
}

export async function enqueueOrderEmails(
  trx: Executor,
  order: OrderRow,
  kinds: OrderEmailKind[],
  now: Date,
): Promise<void> {
  if (kinds.length === 0) return;
  await insertEmailJobs(trx, orderEmailJobValues(order, kinds, now));
}

/**
 * The e-tickets of an order once more (the dashboard's resendTickets): one `etickets`
 * job, to the buyer or to `recipient`, sent by the same worker as the first. Its
 * delivery does not emit `ticket.issued` again (see processJob).
 */
export async function enqueueEticketsResend(trx: Executor, order: OrderRow, recipient: string | undefined, now: Date) {
  const [job] = await insertEmailJobs(trx, orderEmailJobValues(order, ['etickets'], now, recipient));
  return job!;
}

/**
 * The `email_jobs` rows of an order's e-mails (a sale inserts them with its other
 * records), to the buyer unless `recipient` names another address (a resend).
 */
export function orderEmailJobValues(
  order: Pick<OrderRow, 'id' | 'organizer_id' | 'order_no' | 'buyer_email'>,
  kinds: OrderEmailKind[],
  now: Date,
  recipient: string = order.buyer_email,
) {
  return kinds.map((kind, i) => ({
    organizer_id: order.organizer_id,
    order_id: order.id,
    kind,
    recipient,
    subject: emailSubject(kind, order.order_no),
    max_attempts: EMAIL_MAX_ATTEMPTS,
    next_attempt_at: now,
    // The receipt first, then the e-tickets, in the mail log and in the claim order.
    created_at: new Date(now.getTime() + i),
    updated_at: now,
  }));
}

interface EmailJobDeps {
  db: Db;
  mailer: Mailer;
  /** Renders and composes each mail; the job itself only reads the database and sends. */
  renderer: MailRenderer;
  clock: { now(): Date };
  /** How many jobs one pass claims. */
  batchSize?: number;
  /** How many orders' mails are in flight at once (default 1). */
  concurrency?: number;
  /** Where each job's outcome is logged (docs/orders.md, "E-mail"); omitted: nowhere. */
  log?: MailOutcomeLogger;
  /** Opens the organizers' wallet signing keys (WALLET_SECRETS_KEY); omitted: no wallet passes. */
  walletSecretsKey?: Buffer | undefined;
}

/** The log of mail outcomes: ids and kinds, never a recipient address or a mail's content. */
export interface MailOutcomeLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

const jobFields = (job: EmailJobRow) => ({
  emailJobId: job.id,
  orderId: job.order_id,
  organizerId: job.organizer_id,
  kind: job.kind,
  attempt: job.attempts,
});

const EMAIL_BATCH_SIZE = 25;

/**
 * One pass: claim due jobs (one query for the batch), send each, record the outcome.
 * Returns how many were claimed. Rendering happens in the renderer's worker threads, so
 * this thread only waits on the database, the pool and the SMTP server. Mails of
 * different orders go `concurrency` at a time (the SMTP pool has as many connections);
 * an order's own mails keep their order, the receipt before the e-tickets.
 */
export async function runEmailJobsOnce(deps: EmailJobDeps): Promise<number> {
  const now = deps.clock.now();
  const jobs = await claimEmailJobs(
    deps.db,
    now,
    new Date(now.getTime() + EMAIL_LEASE_MS),
    deps.batchSize ?? EMAIL_BATCH_SIZE,
  );
  // An order's mails form one group; an account mail (no order) is a group of its own.
  const groups = new Map<string, EmailJobRow[]>();
  for (const job of jobs) {
    const key = job.order_id === null ? `job:${job.id}` : `order:${job.order_id}`;
    groups.set(key, [...(groups.get(key) ?? []), job]);
  }
  const queue = [...groups.values()];
  const lane = async () => {
    for (let group = queue.shift(); group; group = queue.shift()) {
      for (const job of group) await processJob(deps, job);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(deps.concurrency ?? 1, queue.length)) }, lane));
  return jobs.length;
}

async function processJob(deps: EmailJobDeps, job: EmailJobRow): Promise<void> {
  let rendered: (MailContent & { message: RenderedMail }) | undefined;
  try {
    const found = await mailContent(deps, job);
    rendered = found && { ...found, message: await deps.renderer.render(found.request) };
  } catch (err) {
    return recordFailure(deps, job, err);
  }
  if (!rendered) {
    // Nothing left to send (e.g. every ticket was cancelled before the mail went out).
    await finishEmailJob(deps.db, job, {
      status: 'skipped',
      last_error: null,
      link: null,
      updated_at: deps.clock.now(),
    });
    deps.log?.info(jobFields(job), 'e-mail skipped: nothing left to send');
    emailSends.inc({ outcome: 'skipped' });
    return;
  }
  let messageId: string;
  try {
    messageId = (await deps.mailer.sendComposed(rendered.message)).messageId;
  } catch (err) {
    return recordFailure(deps, job, err);
  }
  const sentAt = deps.clock.now();
  await withTransaction(deps.db, async (trx) => {
    const done = await finishEmailJob(trx, job, {
      status: 'sent',
      sent_at: sentAt,
      message_id: messageId,
      last_error: null,
      notes: rendered.message.notes.length > 0 ? rendered.message.notes.join('\n').slice(0, 2000) : null,
      link: null,
      updated_at: sentAt,
    });
    if (!done || rendered.etickets === undefined) return;
    // The tickets are issued once: a resent e-ticket mail emits no second ticket.issued.
    const order = await markEticketsSent(trx, rendered.etickets.orderId, sentAt);
    if (!order) return;
    const { ticketIds } = rendered.etickets;
    await emitDomainEvent(trx, {
      organizerId: rendered.etickets.organizerId,
      type: 'ticket.issued',
      data: {
        order_id: order.id,
        order_no: order.order_no,
        ticket_ids: ticketIds.slice(0, TICKET_IDS_CAP),
        ticket_ids_truncated: ticketIds.length > TICKET_IDS_CAP,
        ticket_count: ticketIds.length,
      },
      at: sentAt,
    });
  });
  deps.log?.info({ ...jobFields(job), messageId }, 'e-mail sent');
  emailSends.inc({ outcome: 'sent' });
}

async function recordFailure(deps: EmailJobDeps, job: EmailJobRow, err: unknown): Promise<void> {
  const now = deps.clock.now();
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
  if (job.attempts >= job.max_attempts) {
    // The link dies with the job: nothing will send it any more.
    await finishEmailJob(deps.db, job, { status: 'failed', last_error: message, link: null, updated_at: now });
    deps.log?.warn({ ...jobFields(job), err }, 'e-mail failed; no attempt is left');
    emailSends.inc({ outcome: 'failed' });
    return;
  }
  const delay = EMAIL_RETRY_DELAYS_MS[Math.min(job.attempts, EMAIL_RETRY_DELAYS_MS.length) - 1]!;
  const nextAttemptAt = new Date(now.getTime() + delay);
  await finishEmailJob(deps.db, job, {
    status: 'pending',
    next_attempt_at: nextAttemptAt,
    last_error: message,
    updated_at: now,
  });
  deps.log?.warn({ ...jobFields(job), err, nextAttemptAt }, 'e-mail attempt failed; retrying later');
  emailSends.inc({ outcome: 'retry' });
}

/** What a job's mail says; for e-tickets, what their delivery records (ticket.issued). */
interface MailContent {
  request: RenderRequest;
  etickets?: { orderId: string; organizerId: string; ticketIds: string[] };
}

/** What the job's mail says, read from the database as it is now; undefined: nothing to send. */
async function mailContent(deps: EmailJobDeps, job: EmailJobRow): Promise<MailContent | undefined> {
  const { db } = deps;
  switch (job.kind) {
    case 'receipt':
    case 'etickets':
      if (job.order_id === null) throw new Error(`${job.kind} e-mail job ${job.id} has no order`);
      return orderMailContent(deps, { kind: job.kind, orderId: job.order_id, recipient: job.recipient });
    case 'invitation':
      return { request: accountMailRequest(job, job.kind, await organizerLanguage(db, job.organizer_id)) };
    case 'password_reset':
      // An account is no organizer's: its mails speak the platform's language.
      return { request: accountMailRequest(job, job.kind, DEFAULT_LANGUAGE) };
  }
}

/** An invitation speaks its organizer's default language, else English. */
async function organizerLanguage(db: Db, organizerId: string | null): Promise<Language> {
  const organizer = organizerId === null ? undefined : await findOrganizer(db, organizerId);
  return languageOf(null, organizer?.default_language);
}

/** An order's mail: its kind, its order, its buyer's address. */
interface OrderMail {
  kind: OrderEmailKind;
  orderId: string;
  recipient: string;
}

async function orderMailContent(
  { db, walletSecretsKey, clock }: EmailJobDeps,
  { kind, orderId, recipient }: OrderMail,
): Promise<MailContent | undefined> {
  const order = await findOrderById(db, orderId);
  const organizer = await findOrganizer(db, order.organizer_id);
  if (!organizer) throw new Error(`organizer ${order.organizer_id} not found`);
  const buyer = { first_name: order.buyer_first_name, last_name: order.buyer_last_name, email: recipient };
  // The organizer's name on the platform's From; replies to its sender, else contact, address.
  const sender = { name: organizer.name, replyTo: organizer.sender_email ?? organizer.contact_email };
  if (kind === 'receipt') {
    const [lines, transactions] = await Promise.all([
      findReceiptLines(db, order.id),
      findTransactionsOfOrders(db, [order.id]),
    ]);
    const input = {
      // One mail speaks one language: that of the order's first event (an order rarely spans two).
      language: languageOf(lines[0]?.event_language, organizer.default_language),
      organizerName: organizer.name,
      orderNo: order.order_no,
      buyer,
      currency: order.currency,
      totalMinor: order.total_minor,
      status: order.status,
      lines: lines.map((l) => ({
        eventTitle: l.event_title,
        performanceStartsAt: l.starts_at,
        eventTimeZone: l.event_timezone,
        ticketTypeName: l.ticket_type_name,
        quantity: Number(l.quantity),
        unitPriceMinor: l.unit_price_minor,
        totalMinor: l.unit_price_minor * Number(l.quantity),
      })),
      feesMinor: transactions.reduce((sum, t) => sum + t.service_fees_minor + t.surcharges_minor, 0),
      taxesMinor: transactions.reduce((sum, t) => sum + t.taxes_minor, 0),
      createdAt: order.created_at,
      timeZone: organizer.timezone,
    };
    return { request: { kind: 'receipt', input, sender } };
  }
  if (order.status === 'cancelled') return undefined;
  // The tickets as every document of the order reads them (src/documents), in its language.
  const documents = await loadOrderDocuments(db, order);
  if (!documents) return undefined;
  const input = {
    language: documents.language,
    organizerName: documents.organizerName,
    orderNo: documents.orderNo,
    buyer,
    // A document's ticket has every field the e-ticket template reads.
    tickets: documents.tickets,
  };
  const apple = await loadAppleSigner(db, order.organizer_id, walletSecretsKey);
  const google = await loadGoogleSigner(db, order.organizer_id, walletSecretsKey);
  return {
    request: { kind: 'etickets', input, sender, documents: { documents, apple, google, issuedAt: clock.now() } },
    etickets: { orderId: order.id, organizerId: order.organizer_id, ticketIds: documents.tickets.map((t) => t.id) },
  };
}
