/**
 * The two e-mails a buyer receives after POST /orders, the receipt and the e-tickets, and
 * the account e-mails of the dashboard (docs/dashboard.md): a team invitation and a
 * password reset, each carrying a single-use link.
 *
 * Pure rendering: plain data in, a ready-to-send MailMessage out (HTML plus a plain-text
 * alternative, and inline QR code images for e-tickets). No database access, so the job
 * queue can render from whatever snapshot it stored and tests need no fixtures.
 *
 * Every mail speaks the language its input names (docs/tickets.md, "Languages"): its words
 * come from the catalogue's `mail` section (src/i18n/locales), its money and dates from
 * Intl in that language's locale, and its HTML carries `lang` and `dir`, so Arabic reads
 * right to left.
 *
 * Every value interpolated into HTML goes through `escapeHtml`: buyer names, event titles,
 * venue names, organizer and user names come from callers and must not become markup in a
 * mail client. The catalogue's own words are escaped too.
 */
import { translator, type Language, type Translator } from '../i18n/index.ts';
import { qrCodePng } from './qr-png.ts';
import type { MailAttachment, MailMessage } from './compose.ts';

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
  /** What the mail speaks: the order's event's language, else the organizer's, else English. */
  language: Language;
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
  /** What the mail speaks: the order's event's language, else the organizer's, else English. */
  language: Language;
  organizerName: string;
  orderNo: string;
  buyer: MailBuyer;
  tickets: ETicket[];
  /** The order's "Add to Google Wallet" link (docs/tickets.md), when the organizer set Google Wallet up. */
  googleWalletUrl?: string;
  /** Files that ride with the tickets (a PDF, passes, calendar files): attached after the QR images, not inline. */
  extraAttachments?: MailAttachment[];
}

// ---------------------------------------------------------------------------------------
// Words: the catalogue's entries as plain text and as HTML
// ---------------------------------------------------------------------------------------

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

/** Markup made here, interpolated into HTML as it is (everything else is escaped). */
class Html {
  constructor(readonly markup: string) {}
}

type Values = Record<string, string | number>;
type HtmlValues = Record<string, string | number | Html>;

/** Stand-ins for HTML values while i18next interpolates, so the catalogue's words can be escaped around them. */
const SLOT = /\uE000(\d+)\uE001/g;

/**
 * One mail's words in one language. A value a caller supplies (a name, a title, a number)
 * is isolated from the words around it in a right-to-left language, `<bdi>` in HTML and
 * FSI…PDI in plain text, so `M-100042`, an address or a Latin title keeps its own
 * direction inside an Arabic sentence; left-to-right mails carry the values unchanged.
 */
class Words {
  readonly tr: Translator;
  readonly rtl: boolean;
  private readonly fields = new Map<FieldName, string>();

  constructor(language: Language) {
    this.tr = translator(language);
    this.rtl = this.tr.dir === 'rtl';
  }

  /** A catalogue entry for the plain-text part; `count` picks the plural form. */
  text(key: string, values: Values = {}): string {
    const isolated: Values = {};
    for (const [name, value] of Object.entries(values)) {
      isolated[name] = typeof value === 'string' ? this.isolateText(value) : value;
    }
    return this.tr.t(key, isolated);
  }

  /** A catalogue entry as HTML: its words escaped, each value escaped and isolated (Html as it is). */
  html(key: string, values: HtmlValues = {}): string {
    const slots: string[] = [];
    const stand: Values = {};
    for (const [name, value] of Object.entries(values)) {
      if (typeof value === 'number') {
        stand[name] = value; // `count` must stay a number for i18next to pick the plural form
      } else {
        stand[name] = `\uE000${slots.length}\uE001`;
        slots.push(value instanceof Html ? value.markup : this.value(value));
      }
    }
    return escapeHtml(this.tr.t(key, stand)).replace(SLOT, (_, i: string) => slots[Number(i)]!);
  }

  /** A value alone in HTML: escaped, isolated in a right-to-left mail. */
  value(value: string): string {
    const escaped = escapeHtml(value);
    return this.rtl ? `<bdi>${escaped}</bdi>` : escaped;
  }

  strong(value: string): Html {
    return new Html(`<strong>${this.value(value)}</strong>`);
  }

  isolateText(value: string): string {
    return this.rtl ? `\u2068${value}\u2069` : value;
  }

  /** `Order:` (`Commande :` in French): a label as the language writes it before a value. */
  label(label: string): string {
    return this.tr.t('mail.label_colon', { label });
  }

  /** A field's label from the catalogue's `mail.label` section, with its colon. */
  field(name: FieldName): string {
    // Kept per mail: a 1,000-ticket mail labels four fields of every ticket.
    let label = this.fields.get(name);
    if (label === undefined) {
      label = this.label(this.tr.t(`mail.label.${name}`));
      this.fields.set(name, label);
    }
    return label;
  }

  /**
   * Labelled lines of the plain-text part, their values aligned:
   * `Order:  M-100042` / `Status: Paid`.
   */
  fieldLines(rows: Array<[FieldName, string]>, indent = ''): string[] {
    const labels = rows.map(([name]) => this.field(name));
    const width = Math.max(...labels.map((label) => label.length));
    return rows.map(([, value], i) => `${indent}${labels[i]!.padEnd(width + 1)}${this.isolateText(value)}`);
  }

  /** The side amounts sit on: the end of a line, the left in a right-to-left mail. */
  get endSide(): 'left' | 'right' {
    return this.rtl ? 'left' : 'right';
  }
}

type FieldName =
  'order' | 'buyer' | 'date' | 'status' | 'fees' | 'taxes' | 'total' | 'venue' | 'type' | 'holder' | 'serial';

function fullName(first: string, last: string | null): string {
  return last ? `${first} ${last}` : first;
}

/** The order statuses the catalogue names; any other is shown as it is. */
const STATUSES = new Set(['unpaid', 'placed', 'fulfilled', 'cancelled']);

function statusLabel(words: Words, status: string): string {
  return STATUSES.has(status) ? words.tr.t(`mail.status.${status}`) : status;
}

// ---------------------------------------------------------------------------------------
// Shared HTML frame
// ---------------------------------------------------------------------------------------

/**
 * Minimal markup with inline styles only: many mail clients strip `<style>` blocks and
 * external CSS. `bodyHtml` must already be escaped. The language and direction sit on
 * `<html>` and again on the container, with an explicit right alignment for a
 * right-to-left mail, since some clients drop the outer elements.
 */
function htmlDocument(words: Words, title: string, bodyHtml: string): string {
  const { language, dir } = words.tr;
  const align = words.rtl ? 'text-align:right;' : '';
  return `<!doctype html>
<html lang="${language}" dir="${dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
</head>
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif;color:#18181b;">
<div dir="${dir}" style="max-width:600px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px;${align}">
${bodyHtml}
</div>
</body>
</html>
`;
}

/** A call-to-action link: the address as the button's target and, for clients that strip it, as text. */
function linkHtml(label: string, link: string): string {
  return `${buttonHtml(label, link)}
<p style="margin:0 0 16px;color:#52525b;word-break:break-all;">${escapeHtml(link)}</p>`;
}

function buttonHtml(label: string, link: string): string {
  return `<p style="margin:0 0 16px;"><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 16px;background:#18181b;color:#ffffff;text-decoration:none;border-radius:6px;">${escapeHtml(label)}</a></p>`;
}

// ---------------------------------------------------------------------------------------
// Receipt
// ---------------------------------------------------------------------------------------

// eslint-disable-next-line max-lines-per-function -- the receipt's markup, top to bottom
export async function renderReceipt(input: ReceiptInput): Promise<MailMessage> {
  const words = new Words(input.language);
  const { tr } = words;
  const money = (minor: number) => tr.money(minor, input.currency);
  const when = (at: Date) => tr.dateTime(at, input.timeZone);
  const subject = tr.t('mail.receipt.subject', { orderNo: input.orderNo });
  const buyer = `${fullName(input.buyer.first_name, input.buyer.last_name)} <${input.buyer.email}>`;
  const status = statusLabel(words, input.status);
  const lines = input.lines.map((line) => ({
    ...line,
    startsAt: tr.dateTime(line.performanceStartsAt, line.eventTimeZone),
    unitPrice: money(line.unitPriceMinor),
    total: money(line.totalMinor),
  }));

  // Fees and taxes are shown only when charged, so a free or fee-less order stays short.
  const extraRows: Array<[field: FieldName, minor: number]> = [];
  if (input.feesMinor !== 0) extraRows.push(['fees', input.feesMinor]);
  if (input.taxesMinor !== 0) extraRows.push(['taxes', input.taxesMinor]);

  const text = [
    words.text('mail.hello_name', { name: input.buyer.first_name }),
    '',
    words.text('mail.receipt.thanks_text', { organizer: input.organizerName }),
    '',
    ...words.fieldLines([
      ['order', input.orderNo],
      ['buyer', buyer],
      ['date', when(input.createdAt)],
      ['status', status],
    ]),
    '',
    ...lines.flatMap((line) => [
      words.text('mail.event_at', { event: line.eventTitle, date: line.startsAt }),
      `  ${words.text('mail.receipt.line_text', {
        quantity: line.quantity,
        type: line.ticketTypeName,
        price: line.unitPrice,
        total: line.total,
      })}`,
    ]),
    '',
    ...extraRows.map(([field, minor]) => `${words.field(field)} ${words.isolateText(money(minor))}`),
    `${words.field('total')} ${words.isolateText(money(input.totalMinor))}`,
    '',
    words.text('mail.receipt.tickets_follow'),
    '',
  ].join('\n');

  const end = words.endSide;
  const lineRowsHtml = lines
    .map(
      (line) => `<tr>
<td style="padding:8px 0;border-bottom:1px solid #e4e4e7;">
<strong>${words.value(line.eventTitle)}</strong><br>
<span style="color:#52525b;">${words.value(line.startsAt)}</span><br>
${words.html('mail.receipt.line_html', { quantity: line.quantity, type: line.ticketTypeName, price: line.unitPrice })}
</td>
<td style="padding:8px 0;border-bottom:1px solid #e4e4e7;text-align:${end};vertical-align:top;">${words.value(line.total)}</td>
</tr>`,
    )
    .join('\n');
  const extraRowsHtml = extraRows
    .map(
      ([field, minor]) => `<tr>
<td style="padding:4px 0;">${escapeHtml(tr.t(`mail.label.${field}`))}</td>
<td style="padding:4px 0;text-align:${end};">${words.value(money(minor))}</td>
</tr>`,
    )
    .join('\n');

  const body = `<h1 style="font-size:20px;margin:0 0 16px;">${words.html('mail.receipt.heading', { name: input.buyer.first_name })}</h1>
<p style="margin:0 0 16px;">${words.html('mail.receipt.intro', { organizer: input.organizerName })}</p>
<p style="margin:0 0 16px;line-height:1.5;">
${words.html('mail.receipt.order', { orderNo: words.strong(input.orderNo) })}<br>
${escapeHtml(words.field('buyer'))} ${words.value(buyer)}<br>
${escapeHtml(words.field('date'))} ${words.value(when(input.createdAt))}<br>
${escapeHtml(words.field('status'))} ${words.value(status)}
</p>
<table role="presentation" style="width:100%;border-collapse:collapse;">
${lineRowsHtml}
${extraRowsHtml}
<tr>
<td style="padding:8px 0;font-weight:bold;">${escapeHtml(tr.t('mail.label.total'))}</td>
<td style="padding:8px 0;font-weight:bold;text-align:${end};">${words.value(money(input.totalMinor))}</td>
</tr>
</table>
<p style="margin:16px 0 0;color:#52525b;">${words.html('mail.receipt.tickets_follow')}</p>`;

  return { to: input.buyer.email, subject, text, html: htmlDocument(words, subject, body) };
}

// ---------------------------------------------------------------------------------------
// E-tickets
// ---------------------------------------------------------------------------------------

/** Pixel size the QR code is displayed at; the PNG itself is about twice that, for print. */
const QR_DISPLAY_PX = 200;

// eslint-disable-next-line max-lines-per-function -- the e-tickets' markup, top to bottom
export async function renderETickets(input: ETicketInput): Promise<MailMessage> {
  const words = new Words(input.language);
  const { tr } = words;
  const subject = tr.t('mail.etickets.subject', { orderNo: input.orderNo });

  // Content-IDs are derived from the position, not the ticket number, so they are
  // unique and contain only characters that are valid in a Content-ID header.
  // Synchronous CPU work: the e-mail job runs this in a worker thread (src/mail/render-pool.ts).
  const qrImages: MailAttachment[] = input.tickets.map((ticket, index) => ({
    filename: `ticket-${safeFileNamePart(ticket.ticketNo)}.png`,
    content: qrCodePng(ticket.serialNo),
    contentType: 'image/png',
    cid: `ticket-${index + 1}-qr@marquee`,
  }));
  // Regular attachments: without a Content-ID, compose.ts does not mark them inline.
  const extra = (input.extraAttachments ?? []).map(({ filename, content, contentType }) => ({
    filename,
    content,
    contentType,
  }));
  const tickets = input.tickets.map((ticket) => ({
    ...ticket,
    startsAt: tr.dateTime(ticket.performanceStartsAt, ticket.eventTimeZone),
  }));
  const walletLabel = tr.t('mail.etickets.google_wallet');

  const text = [
    words.text('mail.hello_name', { name: input.buyer.first_name }),
    '',
    words.text('mail.etickets.intro_text', { orderNo: input.orderNo, organizer: input.organizerName }),
    words.text('mail.etickets.show_text'),
    // The address on a line of its own, so a client that links addresses takes all of it.
    ...(input.googleWalletUrl ? ['', words.label(walletLabel), input.googleWalletUrl] : []),
    '',
    ...tickets.flatMap((ticket) => [
      words.text('mail.etickets.ticket', { ticketNo: ticket.ticketNo }),
      `  ${words.text('mail.event_at', { event: ticket.eventTitle, date: ticket.startsAt })}`,
      ...words.fieldLines(
        [
          ...(ticket.venueName ? [['venue', ticket.venueName] as [FieldName, string]] : []),
          ['type', ticket.ticketTypeName],
          ['holder', ticket.holderName],
          ['serial', ticket.serialNo],
        ],
        '  ',
      ),
      '',
    ]),
  ].join('\n');

  const ticketsHtml = tickets
    .map((ticket, index) => {
      const cid = qrImages[index]!.cid!;
      const venue = ticket.venueName ? `${words.value(ticket.venueName)}<br>` : '';
      return `<div style="border:1px solid #e4e4e7;border-radius:8px;padding:16px;margin:0 0 16px;">
<p style="margin:0 0 8px;font-size:16px;"><strong>${words.value(ticket.eventTitle)}</strong></p>
<p style="margin:0 0 12px;line-height:1.5;color:#3f3f46;">
${words.value(ticket.startsAt)}<br>
${venue}${words.value(ticket.ticketTypeName)}<br>
${escapeHtml(words.field('holder'))} ${words.value(ticket.holderName)}<br>
${words.html('mail.etickets.ticket', { ticketNo: words.strong(ticket.ticketNo) })}
</p>
<img src="cid:${escapeHtml(cid)}" width="${QR_DISPLAY_PX}" height="${QR_DISPLAY_PX}" alt="${escapeHtml(tr.t('mail.etickets.qr_alt', { ticketNo: ticket.ticketNo }))}" style="display:block;">
<p style="margin:8px 0 0;font-family:monospace;color:#52525b;">${words.value(ticket.serialNo)}</p>
</div>`;
    })
    .join('\n');

  const wallet = input.googleWalletUrl ? `\n${buttonHtml(walletLabel, input.googleWalletUrl)}` : '';
  const body = `<h1 style="font-size:20px;margin:0 0 16px;">${words.html('mail.etickets.heading', { name: input.buyer.first_name })}</h1>
<p style="margin:0 0 16px;">${words.html('mail.etickets.intro_html', { orderNo: words.strong(input.orderNo), organizer: input.organizerName })}</p>${wallet}
${ticketsHtml}`;

  return {
    to: input.buyer.email,
    subject,
    text,
    html: htmlDocument(words, subject, body),
    attachments: [...qrImages, ...extra],
  };
}

/** `value` as part of an attachment's file name: letters, digits, dots, dashes and underscores only. */
export function safeFileNamePart(value: string, fallback = 'ticket'): string {
  return value.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64) || fallback;
}

// ---------------------------------------------------------------------------------------
// Account e-mails: an invitation to an organizer's team, a password reset
// ---------------------------------------------------------------------------------------

/** A membership role (docs/dashboard.md, "Roles and permissions"). */
type AccountRole = 'owner' | 'manager' | 'box_office' | 'door' | 'viewer';

/** Each role as a person reads it in English, the words account-mail data may name it by. */
const ROLE_WORDS: Record<AccountRole, string> = {
  owner: 'owner',
  manager: 'manager',
  box_office: 'box office',
  door: 'door',
  viewer: 'viewer',
};

/** A role from its code (`box_office`) or its English words (`box office`); undefined: no such role. */
export function accountRole(value: string): AccountRole | undefined {
  if (Object.hasOwn(ROLE_WORDS, value)) return value as AccountRole;
  return (Object.keys(ROLE_WORDS) as AccountRole[]).find((role) => ROLE_WORDS[role] === value);
}

/** How long each one-time link works, in hours (docs/dashboard.md, "One-time links"). */
const INVITATION_LINK_LIFETIME_HOURS = 72;
const PASSWORD_RESET_LINK_LIFETIME_HOURS = 1;

export interface InvitationInput {
  /** What the mail speaks: the organizer's default language, else English. */
  language: Language;
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
  /** What the mail speaks (English: an account belongs to no organizer). */
  language: Language;
  /** The account's address. */
  to: string;
  /** The single-use link that sets a new password. */
  link: string;
  /** The account holder's name; empty when the account has none. */
  name: string;
}

/** The subject of an invitation; in English by default, as the mail log records it. */
export function invitationSubject(organizerName: string, language: Language = 'en'): string {
  return translator(language).t('mail.invitation.subject', { organizer: organizerName });
}

export const PASSWORD_RESET_SUBJECT = translator('en').t('mail.password_reset.subject');

export async function renderInvitation(input: InvitationInput): Promise<MailMessage> {
  const words = new Words(input.language);
  const { tr } = words;
  const subject = invitationSubject(input.organizerName, input.language);
  const role = tr.t(`mail.role.${input.role}`);
  const invitedKey = input.inviterName ? 'mail.invitation.invited_by' : 'mail.invitation.invited';
  const invitedValues = { inviter: input.inviterName, organizer: input.organizerName };
  const lifetime = tr.t('mail.link_once_hours', { count: INVITATION_LINK_LIFETIME_HOURS });

  const text = [
    tr.t('mail.hello'),
    '',
    words.text(invitedKey, invitedValues),
    words.text('mail.invitation.role_line', { role }),
    '',
    tr.t('mail.invitation.accept_here'),
    input.link,
    '',
    lifetime,
    '',
  ].join('\n');

  const body = `<h1 style="font-size:20px;margin:0 0 16px;">${words.html('mail.invitation.heading', { organizer: input.organizerName })}</h1>
<p style="margin:0 0 16px;line-height:1.5;">${words.html(invitedKey, invitedValues)}<br>
${words.html('mail.invitation.role_line', { role: words.strong(role) })}</p>
${linkHtml(tr.t('mail.invitation.accept'), input.link)}
<p style="margin:0;color:#52525b;">${escapeHtml(lifetime)}</p>`;

  return { to: input.to, subject, text, html: htmlDocument(words, subject, body) };
}

export async function renderPasswordReset(input: PasswordResetInput): Promise<MailMessage> {
  const words = new Words(input.language);
  const { tr } = words;
  const subject = tr.t('mail.password_reset.subject');
  const greeting = (w: (key: string, values: Values) => string) =>
    input.name ? w('mail.hello_name', { name: input.name }) : w('mail.hello', {});
  const lifetime = tr.t('mail.link_once_hours', { count: PASSWORD_RESET_LINK_LIFETIME_HOURS });
  const notYou = tr.t('mail.password_reset.not_you');

  const text = [
    greeting((key, values) => words.text(key, values)),
    '',
    words.text('mail.password_reset.asked_text', { email: input.to }),
    '',
    tr.t('mail.password_reset.choose_here'),
    input.link,
    '',
    lifetime,
    '',
    notYou,
    '',
  ].join('\n');

  const body = `<h1 style="font-size:20px;margin:0 0 16px;">${greeting((key, values) => words.html(key, values))}</h1>
<p style="margin:0 0 16px;line-height:1.5;">${words.html('mail.password_reset.asked_html', { email: input.to })}</p>
${linkHtml(tr.t('mail.password_reset.choose'), input.link)}
<p style="margin:0 0 16px;color:#52525b;">${escapeHtml(lifetime)}</p>
<p style="margin:0;color:#52525b;">${escapeHtml(notYou)}</p>`;

  return { to: input.to, subject, text, html: htmlDocument(words, subject, body) };
}
