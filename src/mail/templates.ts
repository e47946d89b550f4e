/**
 * The two e-mails a buyer receives after POST /orders, the receipt and the e-tickets, and
 * the account e-mails of the dashboard (docs/dashboard.md): a team invitation and a
 * password reset, each carrying a single-use link.
 *
 * Pure rendering: plain data in, a ready-to-send MailMessage out (HTML plus a plain-text
 * alternative, and inline QR code images for e-tickets). No database access, so the job
 * queue can render from whatever snapshot it stored and tests need no fixtures.
 *
 * Every value interpolated into HTML goes through `escapeHtml`: buyer names, event titles,
 * venue names, organizer and user names come from callers and must not become markup in a
 * mail client.
 */
import { qrCodePng } from './qr-png.ts';
import type { MailAttachment, MailMessage } from './transport.ts';

export { qrCodePng };

// ---------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------

interface MailBuyer {
  first_name: string;
  last_name: string | null;
  email: string;
}

interface ReceiptLine {
  eventTitle: string;
  performanceStartsAt: Date;
  /** The event's IANA zone: a performance's time is shown where the event happens. */
  eventTimeZone: string;
  ticketTypeName: string;
  quantity: number;
  unitPriceMinor: number;
  totalMinor: number;
}

export interface ReceiptInput {
  organizerName: string;
  orderNo: string;
  buyer: MailBuyer;
  /** ISO 4217 code; amounts below are integers in its minor unit. */
  currency: string;
  totalMinor: number;
  /** Order status: `unpaid`, `placed`, `fulfilled` or `cancelled`. */
  status: string;
  lines: ReceiptLine[];
  feesMinor: number;
  taxesMinor: number;
  createdAt: Date;
  /** IANA zone the order date is shown in (the organizer's); defaults to UTC. */
  timeZone?: string;
}

interface ETicket {
  ticketNo: string;
  /** What the gate scanner reads; encoded in the QR code. */
  serialNo: string;
  eventTitle: string;
  ticketTypeName: string;
  performanceStartsAt: Date;
  /** The event's IANA zone: a performance's time is shown where the event happens. */
  eventTimeZone: string;
  venueName: string | null;
  holderName: string;
}

export interface ETicketInput {
  organizerName: string;
  orderNo: string;
  buyer: MailBuyer;
  tickets: ETicket[];
}

// ---------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------

/** One locale for now; per-buyer localisation would thread a locale through the inputs. */
const LOCALE = 'en-US';

/**
 * `1250, 'EUR'` → `€12.50`; `1250, 'JPY'` → `¥1,250`. The number of minor digits comes from
 * ICU's data for the currency (0 for JPY, 3 for KWD), not from a hard-coded 2.
 * Dividing an integer by a power of ten and printing it with exactly that many fraction
 * digits round-trips for every safe integer, so floating point does not leak into totals.
 */
export function formatMoney(minor: number, currency: string): string {
  const format = cached(moneyFormats, currency, () => new Intl.NumberFormat(LOCALE, { style: 'currency', currency }));
  const minorDigits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** minorDigits);
}

/**
 * `Friday, July 3, 2026 at 7:30 PM GMT+2 (Europe/Berlin)`: the time in the given zone,
 * with its offset and, unless it is UTC, its IANA name, so a buyer abroad reads the
 * local time of the show and knows which zone it is in.
 */
function formatDateTime(at: Date, timeZone = 'UTC'): string {
  const format = cached(
    dateTimeFormats,
    timeZone,
    () =>
      new Intl.DateTimeFormat(LOCALE, {
        weekday: 'long',
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZone,
        timeZoneName: 'short',
      }),
  );
  const local = format.format(at);
  return timeZone === 'UTC' || timeZone === 'Etc/UTC' ? local : `${local} (${timeZone})`;
}

/**
 * Building an Intl formatter costs far more than using one, and an e-ticket mail formats
 * a date twice per ticket, so formatters are kept per currency and per zone. Both sets
 * are small (ISO currencies, IANA zones); the bound only guards against odd input.
 */
const moneyFormats = new Map<string, Intl.NumberFormat>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
const MAX_CACHED_FORMATS = 1000;

function cached<T>(cache: Map<string, T>, key: string, create: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = create(); // throws on an unknown currency or zone, before anything is cached
    if (cache.size >= MAX_CACHED_FORMATS) cache.clear();
    cache.set(key, value);
  }
  return value;
}

/**
 * A five-character escape is all HTML text and double-quoted attributes need. Written here
 * rather than imported: `escape-html` is only present as a transitive dependency.
 */
function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch]!);
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function fullName(first: string, last: string | null): string {
  return last ? `${first} ${last}` : first;
}

const STATUS_LABELS: Record<string, string> = {
  unpaid: 'Awaiting payment',
  placed: 'Paid',
  fulfilled: 'Fulfilled',
  cancelled: 'Cancelled',
};

function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

// ---------------------------------------------------------------------------------------
// Shared HTML frame
// ---------------------------------------------------------------------------------------

/**
 * Minimal markup with inline styles only: many mail clients strip `<style>` blocks and
 * external CSS. `bodyHtml` must already be escaped.
 */
function htmlDocument(title: string, bodyHtml: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
</head>
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif;color:#18181b;">
<div style="max-width:600px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px;">
${bodyHtml}
</div>
</body>
</html>
`;
}

// ---------------------------------------------------------------------------------------
// Receipt
// ---------------------------------------------------------------------------------------

// eslint-disable-next-line max-lines-per-function -- the receipt's markup, top to bottom
export async function renderReceipt(input: ReceiptInput): Promise<MailMessage> {
  const money = (minor: number) => formatMoney(minor, input.currency);
  const when = (at: Date) => formatDateTime(at, input.timeZone);
  const subject = `Your receipt for order ${input.orderNo}`;
  const buyerName = fullName(input.buyer.first_name, input.buyer.last_name);

  // Fees and taxes are shown only when charged, so a free or fee-less order stays short.
  const extraRows: Array<[label: string, minor: number]> = [];
  if (input.feesMinor !== 0) extraRows.push(['Fees', input.feesMinor]);
  if (input.taxesMinor !== 0) extraRows.push(['Taxes', input.taxesMinor]);

  const text = [
    `Hello ${input.buyer.first_name},`,
    '',
    `thank you for your order with ${input.organizerName}.`,
    '',
    `Order:  ${input.orderNo}`,
    `Buyer:  ${buyerName} <${input.buyer.email}>`,
    `Date:   ${when(input.createdAt)}`,
    `Status: ${statusLabel(input.status)}`,
    '',
    ...input.lines.flatMap((line) => [
      `${line.eventTitle}, ${formatDateTime(line.performanceStartsAt, line.eventTimeZone)}`,
      `  ${line.quantity} x ${line.ticketTypeName} at ${money(line.unitPriceMinor)} = ${money(line.totalMinor)}`,
    ]),
    '',
    ...extraRows.map(([label, minor]) => `${label}: ${money(minor)}`),
    `Total: ${money(input.totalMinor)}`,
    '',
    `Your e-tickets follow in a separate e-mail.`,
    '',
  ].join('\n');

  const lineRowsHtml = input.lines
    .map(
      (line) => `<tr>
<td style="padding:8px 0;border-bottom:1px solid #e4e4e7;">
<strong>${escapeHtml(line.eventTitle)}</strong><br>
<span style="color:#52525b;">${escapeHtml(formatDateTime(line.performanceStartsAt, line.eventTimeZone))}</span><br>
${escapeHtml(line.quantity)} &times; ${escapeHtml(line.ticketTypeName)} at ${escapeHtml(money(line.unitPriceMinor))}
</td>
<td style="padding:8px 0;border-bottom:1px solid #e4e4e7;text-align:right;vertical-align:top;">${escapeHtml(money(line.totalMinor))}</td>
</tr>`,
    )
    .join('\n');
  const extraRowsHtml = extraRows
    .map(
      ([label, minor]) => `<tr>
<td style="padding:4px 0;">${escapeHtml(label)}</td>
<td style="padding:4px 0;text-align:right;">${escapeHtml(money(minor))}</td>
</tr>`,
    )
    .join('\n');

  const body = `<h1 style="font-size:20px;margin:0 0 16px;">Thank you for your order, ${escapeHtml(input.buyer.first_name)}</h1>
<p style="margin:0 0 16px;">Your order with ${escapeHtml(input.organizerName)}:</p>
<p style="margin:0 0 16px;line-height:1.5;">
Order <strong>${escapeHtml(input.orderNo)}</strong><br>
Buyer: ${escapeHtml(buyerName)} &lt;${escapeHtml(input.buyer.email)}&gt;<br>
Date: ${escapeHtml(when(input.createdAt))}<br>
Status: ${escapeHtml(statusLabel(input.status))}
</p>
<table role="presentation" style="width:100%;border-collapse:collapse;">
${lineRowsHtml}
${extraRowsHtml}
<tr>
<td style="padding:8px 0;font-weight:bold;">Total</td>
<td style="padding:8px 0;font-weight:bold;text-align:right;">${escapeHtml(money(input.totalMinor))}</td>
</tr>
</table>
<p style="margin:16px 0 0;color:#52525b;">Your e-tickets follow in a separate e-mail.</p>`;

  return { to: input.buyer.email, subject, text, html: htmlDocument(subject, body) };
}

// ---------------------------------------------------------------------------------------
// E-tickets
// ---------------------------------------------------------------------------------------

/** Pixel size the QR code is displayed at; the PNG itself is about twice that, for print. */
const QR_DISPLAY_PX = 200;

export async function renderETickets(input: ETicketInput): Promise<MailMessage> {
  const subject = `Your tickets for order ${input.orderNo}`;

  // Content-IDs are derived from the position, not the ticket number, so they are
  // unique and contain only characters that are valid in a Content-ID header.
  // Synchronous CPU work: the e-mail job runs this in a worker thread (src/mail/render-pool.ts).
  const attachments: MailAttachment[] = input.tickets.map((ticket, index) => ({
    filename: `ticket-${safeFileNamePart(ticket.ticketNo)}.png`,
    content: qrCodePng(ticket.serialNo),
    contentType: 'image/png',
    cid: `ticket-${index + 1}-qr@marquee`,
  }));

  const text = [
    `Hello ${input.buyer.first_name},`,
    '',
    `here are your tickets for order ${input.orderNo} with ${input.organizerName}.`,
    `Show the QR code of each ticket at the entrance (attached as images).`,
    '',
    ...input.tickets.flatMap((ticket) => [
      `Ticket ${ticket.ticketNo}`,
      `  ${ticket.eventTitle}, ${formatDateTime(ticket.performanceStartsAt, ticket.eventTimeZone)}`,
      ...(ticket.venueName ? [`  Venue:  ${ticket.venueName}`] : []),
      `  Type:   ${ticket.ticketTypeName}`,
      `  Holder: ${ticket.holderName}`,
      `  Serial: ${ticket.serialNo}`,
      '',
    ]),
  ].join('\n');

  const ticketsHtml = input.tickets
    .map((ticket, index) => {
      const cid = attachments[index]!.cid!;
      const venue = ticket.venueName ? `${escapeHtml(ticket.venueName)}<br>` : '';
      return `<div style="border:1px solid #e4e4e7;border-radius:8px;padding:16px;margin:0 0 16px;">
<p style="margin:0 0 8px;font-size:16px;"><strong>${escapeHtml(ticket.eventTitle)}</strong></p>
<p style="margin:0 0 12px;line-height:1.5;color:#3f3f46;">
${escapeHtml(formatDateTime(ticket.performanceStartsAt, ticket.eventTimeZone))}<br>
${venue}${escapeHtml(ticket.ticketTypeName)}<br>
Holder: ${escapeHtml(ticket.holderName)}<br>
Ticket <strong>${escapeHtml(ticket.ticketNo)}</strong>
</p>
<img src="cid:${escapeHtml(cid)}" width="${QR_DISPLAY_PX}" height="${QR_DISPLAY_PX}" alt="QR code of ticket ${escapeHtml(ticket.ticketNo)}" style="display:block;">
<p style="margin:8px 0 0;font-family:monospace;color:#52525b;">${escapeHtml(ticket.serialNo)}</p>
</div>`;
    })
    .join('\n');

  const body = `<h1 style="font-size:20px;margin:0 0 16px;">Your tickets, ${escapeHtml(input.buyer.first_name)}</h1>
<p style="margin:0 0 16px;">Order <strong>${escapeHtml(input.orderNo)}</strong> with ${escapeHtml(input.organizerName)}. Show the QR code of each ticket at the entrance.</p>
${ticketsHtml}`;

  return { to: input.buyer.email, subject, text, html: htmlDocument(subject, body), attachments };
}

function safeFileNamePart(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64) || 'ticket';
}

// ---------------------------------------------------------------------------------------
// Account e-mails: an invitation to an organizer's team, a password reset
// ---------------------------------------------------------------------------------------

/** A membership role (docs/dashboard.md, "Roles and permissions"). */
type AccountRole = 'owner' | 'manager' | 'box_office' | 'door' | 'viewer';

/** Each role as a person reads it. */
const ROLE_WORDS: Record<AccountRole, string> = {
  owner: 'owner',
  manager: 'manager',
  box_office: 'box office',
  door: 'door',
  viewer: 'viewer',
};

/** A role from its code (`box_office`) or its words (`box office`); undefined: no such role. */
export function accountRole(value: string): AccountRole | undefined {
  if (Object.hasOwn(ROLE_WORDS, value)) return value as AccountRole;
  return (Object.keys(ROLE_WORDS) as AccountRole[]).find((role) => ROLE_WORDS[role] === value);
}

/** How long each one-time link works (docs/dashboard.md, "One-time links"). */
const INVITATION_LINK_LIFETIME = '72 hours';
const PASSWORD_RESET_LINK_LIFETIME = '1 hour';

export interface InvitationInput {
  /** The invited address. */
  to: string;
  /** The single-use link that accepts the invitation. */
  link: string;
  organizerName: string;
  /** Who sent the invitation; empty when unknown. */
  inviterName: string;
  role: AccountRole;
}

export interface PasswordResetInput {
  /** The account's address. */
  to: string;
  /** The single-use link that sets a new password. */
  link: string;
  /** The account holder's name; empty when the account has none. */
  name: string;
}

export function invitationSubject(organizerName: string): string {
  return `You are invited to join ${organizerName} on Marquee`;
}

export const PASSWORD_RESET_SUBJECT = 'Reset your Marquee password';

/** A call-to-action link: the address as the button's target and, for clients that strip it, as text. */
function linkHtml(label: string, link: string): string {
  return `<p style="margin:0 0 16px;"><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 16px;background:#18181b;color:#ffffff;text-decoration:none;border-radius:6px;">${escapeHtml(label)}</a></p>
<p style="margin:0 0 16px;color:#52525b;word-break:break-all;">${escapeHtml(link)}</p>`;
}

export async function renderInvitation(input: InvitationInput): Promise<MailMessage> {
  const subject = invitationSubject(input.organizerName);
  const role = ROLE_WORDS[input.role];
  const invited = (inviter: string, organizer: string) =>
    input.inviterName
      ? `${inviter} invited you to join ${organizer} on Marquee.`
      : `You are invited to join ${organizer} on Marquee.`;
  const lifetime = `This link can be used only once, within ${INVITATION_LINK_LIFETIME}.`;

  const text = [
    'Hello,',
    '',
    invited(input.inviterName, input.organizerName),
    `Your role: ${role}.`,
    '',
    'Accept the invitation here:',
    input.link,
    '',
    lifetime,
    '',
  ].join('\n');

  const body = `<h1 style="font-size:20px;margin:0 0 16px;">You are invited to join ${escapeHtml(input.organizerName)}</h1>
<p style="margin:0 0 16px;line-height:1.5;">${invited(escapeHtml(input.inviterName), escapeHtml(input.organizerName))}<br>
Your role: <strong>${escapeHtml(role)}</strong>.</p>
${linkHtml('Accept the invitation', input.link)}
<p style="margin:0;color:#52525b;">${escapeHtml(lifetime)}</p>`;

  return { to: input.to, subject, text, html: htmlDocument(subject, body) };
}

export async function renderPasswordReset(input: PasswordResetInput): Promise<MailMessage> {
  const subject = PASSWORD_RESET_SUBJECT;
  const greeting = input.name ? `Hello ${input.name},` : 'Hello,';
  const lifetime = `This link can be used only once, within ${PASSWORD_RESET_LINK_LIFETIME}.`;
  const notYou = 'If you did not ask for this, ignore this e-mail: your password stays as it is.';

  const text = [
    greeting,
    '',
    `someone asked to reset the password of your Marquee account (${input.to}).`,
    '',
    'Choose a new password here:',
    input.link,
    '',
    lifetime,
    '',
    notYou,
    '',
  ].join('\n');

  const body = `<h1 style="font-size:20px;margin:0 0 16px;">${escapeHtml(greeting)}</h1>
<p style="margin:0 0 16px;line-height:1.5;">Someone asked to reset the password of your Marquee account (${escapeHtml(input.to)}).</p>
${linkHtml('Choose a new password', input.link)}
<p style="margin:0 0 16px;color:#52525b;">${escapeHtml(lifetime)}</p>
<p style="margin:0;color:#52525b;">${escapeHtml(notYou)}</p>`;

  return { to: input.to, subject, text, html: htmlDocument(subject, body) };
}
