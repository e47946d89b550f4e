/**
 * The PDF tickets of an order (docs/tickets.md, "PDF tickets"): one page per ticket with
 * the event, its performance's date and time in the event's zone (the zone named), the
 * venue, the ticket type, price, holder, ticket and order numbers, the organizer, and
 * the serial's QR code, drawn as vector squares so it stays sharp at any print size.
 *
 * Paper: A4 or Letter (the organizer's setting). Everything is laid out within the
 * narrower width (A4, 595.28 pt) and the shorter height (Letter, 792 pt) of the two,
 * so one layout prints without clipping on both.
 *
 * Text: Noto Sans, embedded (subset), from @fontsource's per-script files; each character
 * is drawn in the first file whose Unicode range holds it (Latin, Latin Extended, Greek,
 * Cyrillic, Arabic). Right-to-left text (Arabic) is put in visual order with the Unicode
 * bidirectional algorithm (bidi-js); fontkit, which pdfkit lays text out with, shapes the
 * Arabic letters (joined forms) of each run. Words are drawn one by one so that text
 * extraction (copy, search, screen readers) finds them in reading order.
 *
 * Pure: no database, no network; the render threads can run it (src/mail/render-pool.ts).
 */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { createRequire } from 'node:module';
import bidiModule from 'bidi-js';
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { translator, type Translator } from '../i18n/index.ts';
import type { DocumentTicket, OrderDocumentInput, PaperSize } from './types.ts';

const require = createRequire(import.meta.url);
// bidi-js is CommonJS (`module.exports = bidiFactory`) typed as an ES module's default export.
const bidiFactory = bidiModule as unknown as typeof bidiModule.default;
const bidi = bidiFactory();

// ---------------------------------------------------------------------------------------
// Fonts

type Weight = 'regular' | 'bold';
type Script = 'latin' | 'latin-ext' | 'greek' | 'cyrillic' | 'arabic';

/** The order a character's font is looked for in: the first file whose range holds it. */
const SCRIPTS: readonly Script[] = ['latin', 'latin-ext', 'greek', 'cyrillic', 'arabic'];

function fontFile(script: Script, weight: Weight): string {
  const w = weight === 'bold' ? 700 : 400;
  return script === 'arabic'
    ? require.resolve(`@fontsource/noto-sans-arabic/files/noto-sans-arabic-arabic-${w}-normal.woff`)
    : require.resolve(`@fontsource/noto-sans/files/noto-sans-${script}-${w}-normal.woff`);
}

/**
 * A WOFF 1.0 file as the plain TrueType/OpenType font it wraps: each table inflated once
 * with node's zlib. fontkit reads WOFF too, but inflates its tables in JavaScript for
 * every document (most of a small PDF's render time); an unwrapped font costs nothing.
 */
function unwrapWoff(woff: Buffer): Buffer {
  if (woff.toString('latin1', 0, 4) !== 'wOFF') throw new Error('not a WOFF 1.0 font');
  const numTables = woff.readUInt16BE(12);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = 44 + 20 * i;
    const offset = woff.readUInt32BE(at + 4);
    const compLength = woff.readUInt32BE(at + 8);
    const origLength = woff.readUInt32BE(at + 12);
    const stored = woff.subarray(offset, offset + compLength);
    return {
      tag: woff.subarray(at, at + 4),
      checksum: woff.readUInt32BE(at + 16),
      data: compLength < origLength ? inflateSync(stored) : stored,
    };
  });
  const entrySelector = Math.floor(Math.log2(numTables));
  const searchRange = 2 ** entrySelector * 16;
  const header = Buffer.alloc(12 + 16 * numTables);
  woff.copy(header, 0, 4, 8); // the flavor: sfnt version
  header.writeUInt16BE(numTables, 4);
  header.writeUInt16BE(searchRange, 6);
  header.writeUInt16BE(entrySelector, 8);
  header.writeUInt16BE(numTables * 16 - searchRange, 10);
  const parts: Buffer[] = [header];
  let offset = header.length;
  tables.forEach((table, i) => {
    const record = 12 + 16 * i;
    table.tag.copy(header, record);
    header.writeUInt32BE(table.checksum, record + 4);
    header.writeUInt32BE(offset, record + 8);
    header.writeUInt32BE(table.data.length, record + 12);
    const padded = Buffer.alloc((table.data.length + 3) & ~3);
    table.data.copy(padded);
    parts.push(padded);
    offset += padded.length;
  });
  return Buffer.concat(parts);
}

/** Read and unwrapped once per process: the font files (about 30-100 kB each). */
const fontBuffers = new Map<string, Buffer>();
function fontBuffer(script: Script, weight: Weight): Buffer {
  const key = `${script}-${weight}`;
  let buffer = fontBuffers.get(key);
  if (!buffer) {
    buffer = unwrapWoff(readFileSync(fontFile(script, weight)));
    fontBuffers.set(key, buffer);
  }
  return buffer;
}

let ranges: Array<{ script: Script; from: number; to: number }> | undefined;

/** The Unicode ranges of each file, from @fontsource's unicode.json (`U+0000-00FF,U+0131,…`). */
function scriptRanges() {
  if (!ranges) {
    const sans = JSON.parse(readFileSync(require.resolve('@fontsource/noto-sans/unicode.json'), 'utf8')) as Record<
      string,
      string
    >;
    const arabic = JSON.parse(
      readFileSync(require.resolve('@fontsource/noto-sans-arabic/unicode.json'), 'utf8'),
    ) as Record<string, string>;
    ranges = SCRIPTS.flatMap((script) =>
      (script === 'arabic' ? arabic.arabic! : sans[script]!).split(',').map((part) => {
        const [from, to] = part.replace('U+', '').split('-');
        return { script, from: parseInt(from!, 16), to: parseInt(to ?? from!, 16) };
      }),
    );
  }
  return ranges;
}

const scriptOfCodePoint = new Map<number, Script>();

/** The font file that draws a code point; Latin (its missing-glyph box) for what none holds. */
function scriptOf(codePoint: number): Script {
  if (codePoint < 0x100) return 'latin';
  let script = scriptOfCodePoint.get(codePoint);
  if (!script) {
    script = scriptRanges().find((r) => codePoint >= r.from && codePoint <= r.to)?.script ?? 'latin';
    scriptOfCodePoint.set(codePoint, script);
  }
  return script;
}

const fontName = (script: Script, weight: Weight) => `${script}-${weight}`;

/**
 * The parsed fonts (fontkit's objects), kept from the first document that used them:
 * parsing a font's tables costs tens of milliseconds a document, and a parsed font is
 * read-only to pdfkit (each document subsets it into its own copy). pdfkit's
 * registerFont takes a parsed font where it takes a file.
 */
const parsedFonts = new Map<string, unknown>();

function registerFonts(doc: PDFKit.PDFDocument): void {
  for (const script of SCRIPTS)
    for (const weight of ['regular', 'bold'] as const) {
      const name = fontName(script, weight);
      doc.registerFont(name, (parsedFonts.get(name) ?? fontBuffer(script, weight)) as Buffer);
    }
}

function keepParsedFont(doc: PDFKit.PDFDocument, name: string): void {
  if (parsedFonts.has(name)) return;
  const current = (doc as unknown as { _font?: { font?: { layout?: unknown } } })._font?.font;
  if (typeof current?.layout === 'function') parsedFonts.set(name, current);
}

// ---------------------------------------------------------------------------------------
// Text: bidi runs, measuring, wrapping

/** A piece of a line drawn in one call: one font, one direction, no space inside (unless left to right). */
interface Token {
  text: string;
  script: Script;
  level: number;
  space: boolean;
}

/** Characters that steer the bidirectional algorithm and draw nothing (LRM, RLM, ALM, embeddings, isolates). */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** Characters of right-to-left scripts, and the controls that open right-to-left text. */
const RIGHT_TO_LEFT =
  /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\u200f\u202b\u202e\u2067]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/** Laid-out lines repeat on every ticket of an order (title, venue, labels): kept, up to a bound. */
const tokenCache = new Map<string, Token[]>();
const MAX_CACHED_LINES = 5000;

/** A line's tokens in visual order, left to right (UAX #9 rule L2 over the tokens). */
function visualTokens(text: string, dir: 'ltr' | 'rtl'): Token[] {
  const key = `${dir}:${text}`;
  let tokens = tokenCache.get(key);
  if (!tokens) {
    tokens = layoutTokens(text, dir);
    if (tokenCache.size >= MAX_CACHED_LINES) tokenCache.clear();
    tokenCache.set(key, tokens);
  }
  return tokens;
}

function layoutTokens(text: string, dir: 'ltr' | 'rtl'): Token[] {
  // Left-to-right text without a right-to-left character is all at level 0: no algorithm to run.
  const levels =
    dir === 'ltr' && !RIGHT_TO_LEFT.test(text)
      ? new Uint8Array(text.length)
      : bidi.getEmbeddingLevels(text, dir).levels;
  const tokens: Token[] = [];
  let index = 0;
  for (const char of text) {
    const level = levels[index]!;
    index += char.length;
    if (BIDI_CONTROLS.test(char)) continue;
    const space = char === ' ';
    const script = space ? 'latin' : scriptOf(char.codePointAt(0)!);
    const last = tokens.at(-1);
    if (last && last.level === level && last.space === space && last.script === script) last.text += char;
    else tokens.push({ text: char, script, level, space });
  }
  const max = Math.max(0, ...tokens.map((t) => t.level));
  const lowestOdd = Math.min(...tokens.map((t) => t.level).filter((l) => l % 2 === 1), max + 1);
  for (let level = max; level >= lowestOdd; level--) {
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i]!.level < level) continue;
      let j = i;
      while (j + 1 < tokens.length && tokens[j + 1]!.level >= level) j++;
      tokens.splice(i, j - i + 1, ...tokens.slice(i, j + 1).reverse());
      i = j;
    }
  }
  for (const token of tokens) {
    // fontkit lays an Arabic run out right to left by itself (it reverses the shaped glyphs),
    // so a right-to-left Arabic run stays in logical order. Any other right-to-left run
    // (punctuation between Arabic words) is reversed here, brackets mirrored; a
    // left-to-right run of Arabic digits is reversed so that fontkit's reversal undoes it.
    const rtl = token.level % 2 === 1;
    if (rtl !== (token.script === 'arabic') && !token.space) {
      token.text = [...token.text]
        .reverse()
        .map((c) => (rtl ? (bidi.getMirroredCharacter(c) ?? c) : c))
        .join('');
    }
  }
  return tokens;
}

interface Style {
  weight: Weight;
  size: number;
  color: string;
}

/** Widths of tokens (words, mostly) per point of font size, by font; bounded. */
const emWidths = new Map<string, number>();
const MAX_CACHED_WIDTHS = 20_000;

/** The baseline's depth below a line's top, in ems (Noto Sans's capitals are 0.71 em tall). */
const BASELINE = 0.92;

class Typesetter {
  constructor(
    readonly doc: PDFKit.PDFDocument,
    readonly dir: 'ltr' | 'rtl',
  ) {}

  private use(script: Script, style: Style): void {
    const name = fontName(script, style.weight);
    this.doc.font(name).fontSize(style.size);
    keepParsedFont(this.doc, name);
  }

  private readonly widths = new Map<string, number>();

  private tokenWidth(token: Token, style: Style): number {
    // A token's width per point of size, kept across documents: measuring lays the text
    // out (shaping), which pdfkit caches per document only.
    const key = `${fontName(token.script, style.weight)}:${token.text}`;
    let perPoint = emWidths.get(key);
    if (perPoint === undefined) {
      this.use(token.script, style);
      perPoint = this.doc.widthOfString(token.text) / style.size;
      if (emWidths.size >= MAX_CACHED_WIDTHS) emWidths.clear();
      emWidths.set(key, perPoint);
    }
    return perPoint * style.size;
  }

  width(text: string, style: Style): number {
    const key = `${style.weight}${style.size}:${text}`;
    let width = this.widths.get(key);
    if (width === undefined) {
      width = visualTokens(text, this.dir).reduce((sum, token) => sum + this.tokenWidth(token, style), 0);
      this.widths.set(key, width);
    }
    return width;
  }

  /** Greedy wrap at spaces; a word wider than the line is cut by characters. At most `maxLines`, the last ending in "…". */
  wrap(text: string, style: Style, maxWidth: number, maxLines = Infinity): string[] {
    const lines: string[] = [];
    let line = '';
    const words = text.split(/\s+/u).filter(Boolean);
    for (let word of words) {
      const candidate = line ? `${line} ${word}` : word;
      if (this.width(candidate, style) <= maxWidth) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      while (this.width(word, style) > maxWidth) {
        const chars = [...word];
        let fit = chars.length - 1;
        while (fit > 1 && this.width(chars.slice(0, fit).join(''), style) > maxWidth) fit--;
        lines.push(chars.slice(0, fit).join(''));
        word = chars.slice(fit).join('');
      }
      line = word;
    }
    if (line) lines.push(line);
    if (lines.length <= maxLines) return lines;
    const kept = lines.slice(0, maxLines);
    let last = kept[maxLines - 1]!;
    while (last && this.width(`${last}…`, style) > maxWidth) last = [...last].slice(0, -1).join('');
    kept[maxLines - 1] = `${last.trimEnd()}…`;
    return kept;
  }

  /**
   * One line at `y`, from `x` (left to right) or ending at `x + width` (right to left).
   * Left-to-right runs of one font are drawn in one call, right-to-left ones word by word.
   */
  line(text: string, style: Style, x: number, y: number, width: number, align: 'start' | 'end' = 'start'): void {
    const tokens = visualTokens(text, this.dir);
    const widths = tokens.map((t) => this.tokenWidth(t, style));
    const total = widths.reduce((a, b) => a + b, 0);
    const fromRight = (this.dir === 'rtl') !== (align === 'end');
    let cursor = fromRight ? x + width - total : x;
    this.doc.fillColor(style.color);
    let pending: { text: string; script: Script; x: number } | undefined;
    const flush = () => {
      if (!pending) return;
      this.use(pending.script, style);
      // On the baseline: the fonts' ascents differ, so their tops would not line up.
      this.doc.text(pending.text, pending.x, y + style.size * BASELINE, { lineBreak: false, baseline: 'alphabetic' });
      pending = undefined;
    };
    tokens.forEach((token, i) => {
      const joinable = token.level % 2 === 0 && token.script !== 'arabic';
      if (token.space) {
        if (pending && joinable) pending.text += token.text;
        else flush();
      } else if (pending && joinable && pending.script === token.script) {
        pending.text += token.text;
      } else {
        flush();
        pending = { text: token.text, script: token.script, x: cursor };
        if (!joinable) flush();
      }
      cursor += widths[i]!;
    });
    flush();
  }

  /** Wrapped lines from `y`; returns the y below the last line. */
  block(
    text: string,
    style: Style,
    x: number,
    y: number,
    width: number,
    opts: { maxLines?: number; lineHeight?: number } = {},
  ): number {
    const lineHeight = opts.lineHeight ?? style.size * 1.3;
    for (const line of this.wrap(text, style, width, opts.maxLines)) {
      this.line(line, style, x, y, width);
      y += lineHeight;
    }
    return y;
  }
}

// ---------------------------------------------------------------------------------------
// The page

const PAGE_SIZES: Record<PaperSize, { name: 'A4' | 'LETTER'; width: number; height: number }> = {
  a4: { name: 'A4', width: 595.28, height: 841.89 },
  letter: { name: 'LETTER', width: 612, height: 792 },
};
/**
 * The layout's width: the narrower of the two sizes. Its height stays within the shorter
 * (Letter, 792 pt): the tallest page (three-line title, two-line fields) ends near 650 pt.
 */
const LAYOUT_WIDTH = Math.min(PAGE_SIZES.a4.width, PAGE_SIZES.letter.width);
/** Well inside every office printer's unprintable edge (about 4-6 mm). */
const MARGIN = 42;
const CONTENT_WIDTH = LAYOUT_WIDTH - 2 * MARGIN;

/**
 * The QR code with its quiet zone: 200 pt square. A serial's symbol (25 modules at level
 * M) is then about 152 pt, 53 mm, above the 45 mm a phone reads at arm's length.
 */
const QR_BOX = 200;
const QR_QUIET_ZONE_MODULES = 4;
const QR_ERROR_CORRECTION = 'M';

const INK = '#111111';
const MUTED = '#555555';
const RULE = '#bbbbbb';

const TITLE_SIZES = [24, 20] as const;
const MIN_TITLE_SIZE = 17;

function drawQr(doc: PDFKit.PDFDocument, serialNo: string, x: number, y: number): void {
  const { modules } = QRCode.create(serialNo, { errorCorrectionLevel: QR_ERROR_CORRECTION });
  const cell = QR_BOX / (modules.size + 2 * QR_QUIET_ZONE_MODULES);
  const origin = QR_QUIET_ZONE_MODULES * cell;
  doc.rect(x, y, QR_BOX, QR_BOX).fill('#ffffff');
  // One rectangle per horizontal run of dark modules, all filled at once.
  for (let row = 0; row < modules.size; row++) {
    let col = 0;
    while (col < modules.size) {
      if (!modules.get(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < modules.size && modules.get(row, col)) col++;
      doc.rect(x + origin + start * cell, y + origin + row * cell, (col - start) * cell, cell);
    }
  }
  doc.fill('#000000');
}

interface PageContext {
  doc: PDFKit.PDFDocument;
  type: Typesetter;
  t: Translator;
  input: OrderDocumentInput;
  rtl: boolean;
  /** The layout box's left edge on this page. */
  left: number;
}

const SMALL: Style = { weight: 'regular', size: 9.5, color: MUTED };

function drawTicket(
  doc: PDFKit.PDFDocument,
  type: Typesetter,
  t: Translator,
  input: OrderDocumentInput,
  ticket: DocumentTicket,
  index: number,
): void {
  const page = PAGE_SIZES[input.paperSize];
  doc.addPage({ size: page.name, margin: 0 });
  // Centred across the page's width; the layout is the narrower size's either way.
  const ctx: PageContext = {
    doc,
    type,
    t,
    input,
    rtl: t.dir === 'rtl',
    left: (page.width - LAYOUT_WIDTH) / 2 + MARGIN,
  };
  let y = drawHeading(ctx, ticket, index, MARGIN);
  y = drawFieldsAndCode(ctx, ticket, y);
  y = type.block(t.t('pdf.entry_note'), SMALL, ctx.left, y, CONTENT_WIDTH, { maxLines: 4 });
  type.block(t.t('pdf.organized_by', { organizer: input.organizerName }), SMALL, ctx.left, y + 2, CONTENT_WIDTH, {
    maxLines: 2,
  });
}

/** Organizer and page count, the title, the date and time, the venue, a rule; returns the y below. */
function drawHeading(
  { doc, type, t, input, rtl, left }: PageContext,
  ticket: DocumentTicket,
  index: number,
  y: number,
) {
  const halfWidth = CONTENT_WIDTH / 2 - 8;
  type.line(input.organizerName, SMALL, rtl ? left + CONTENT_WIDTH - halfWidth : left, y, halfWidth);
  const pageLabel = t.t('pdf.page', { index: index + 1, total: input.tickets.length });
  type.line(pageLabel, SMALL, rtl ? left : left + CONTENT_WIDTH - halfWidth, y, halfWidth, 'end');
  y += 26;
  // The title: as large as fits in three lines.
  const titleSize =
    TITLE_SIZES.find(
      (size) => type.wrap(ticket.eventTitle, { weight: 'bold', size, color: INK }, CONTENT_WIDTH).length <= 3,
    ) ?? MIN_TITLE_SIZE;
  const title: Style = { weight: 'bold', size: titleSize, color: INK };
  y = type.block(ticket.eventTitle, title, left, y, CONTENT_WIDTH, { maxLines: 3 }) + 6;
  const when: Style = { weight: 'bold', size: 13, color: INK };
  const at = t.dateTime(ticket.performanceStartsAt, ticket.eventTimeZone);
  y = type.block(at, when, left, y, CONTENT_WIDTH, { maxLines: 2 });
  if (ticket.venueName) {
    const venue: Style = { weight: 'regular', size: 12.5, color: INK };
    y = type.block(ticket.venueName, venue, left, y + 2, CONTENT_WIDTH, { maxLines: 2 });
  }
  y += 14;
  doc
    .moveTo(left, y)
    .lineTo(left + CONTENT_WIDTH, y)
    .lineWidth(0.75)
    .strokeColor(RULE)
    .stroke();
  return y + 20;
}

/** The fields beside the QR code (right of it in a right-to-left language); returns the y below both. */
function drawFieldsAndCode({ doc, type, t, input, rtl, left }: PageContext, ticket: DocumentTicket, top: number) {
  const gap = 24;
  const fieldsWidth = CONTENT_WIDTH - QR_BOX - gap;
  const fieldsX = rtl ? left + QR_BOX + gap : left;
  const qrX = rtl ? left : left + CONTENT_WIDTH - QR_BOX;
  const label: Style = { weight: 'regular', size: 9, color: MUTED };
  const value: Style = { weight: 'bold', size: 12.5, color: INK };
  const fields: Array<[string, string]> = [
    [t.t('ticket.type'), ticket.ticketTypeName],
    [t.t('ticket.price'), ticket.priceMinor === 0 ? t.t('ticket.free') : t.money(ticket.priceMinor, input.currency)],
    [t.t('ticket.holder'), ticket.holderName],
    [t.t('ticket.number'), ticket.ticketNo],
    [t.t('ticket.order'), input.orderNo],
  ];
  let y = top;
  for (const [name, text] of fields) {
    type.line(name, label, fieldsX, y, fieldsWidth);
    y = type.block(text, value, fieldsX, y + 13, fieldsWidth, { maxLines: 2, lineHeight: 16 }) + 9;
  }

  const qrY = top - 4;
  drawQr(doc, ticket.serialNo, qrX, qrY);
  // The serial under the code, for a door that types it; smaller if a long one needs it.
  let serialSize = 10;
  while (serialSize > 6 && type.width(ticket.serialNo, { weight: 'regular', size: serialSize, color: INK }) > QR_BOX)
    serialSize -= 0.5;
  const serial: Style = { weight: 'regular', size: serialSize, color: INK };
  const serialWidth = type.width(ticket.serialNo, serial);
  type.line(ticket.serialNo, serial, qrX + (QR_BOX - serialWidth) / 2, qrY + QR_BOX + 2, serialWidth);
  return Math.max(y, qrY + QR_BOX + 22) + 16;
}

const PAGES_PER_SLICE = 20;

/** The translator with its entries without values kept: every page asks for the same labels. */
function withKeptLabels(t: Translator): Translator {
  const kept = new Map<string, string>();
  return {
    ...t,
    t(key, values) {
      if (values) return t.t(key, values);
      let label = kept.get(key);
      if (label === undefined) {
        label = t.t(key);
        kept.set(key, label);
      }
      return label;
    },
  };
}

/** The order's tickets as one PDF, a page per ticket, in the input's language and paper size. */
export async function renderTicketsPdf(input: OrderDocumentInput): Promise<Buffer> {
  const t = withKeptLabels(translator(input.language));
  const doc = new PDFDocument({
    autoFirstPage: false,
    lang: t.locale,
    displayTitle: true,
    info: {
      Title: t.t('pdf.title', { order: input.orderNo }),
      Author: input.organizerName,
      Subject: input.tickets[0]?.eventTitle ?? '',
      Creator: 'Marquee',
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  // Awaited at the end; until then a stream error must not count as unhandled.
  done.catch(() => undefined);
  registerFonts(doc);
  const type = new Typesetter(doc, t.dir);
  for (const [index, ticket] of input.tickets.entries()) {
    // A page is a few milliseconds of CPU: a large order lets other work (requests, when
    // rendered on the API's thread) run between slices of pages.
    if (index > 0 && index % PAGES_PER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    drawTicket(doc, type, t, input, ticket, index);
  }
  doc.end();
  return done;
}
