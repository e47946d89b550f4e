/**
 * Mail rendering off the event loop and cheap: the QR PNG encoder, the worker-thread
 * render pool (a 1,000-ticket e-ticket mail while this thread keeps ticking) and pooled
 * SMTP connections (docs/orders.md, "E-mail").
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { crc32, inflateSync } from 'node:zlib';
import QRCode from 'qrcode';
import { QR_MODULE_PX, QR_QUIET_ZONE_MODULES, qrCodePng } from '../../src/mail/qr-png.ts';
import { createRenderPool, type MailRenderer } from '../../src/mail/render-pool.ts';
import type { ETicketInput } from '../../src/mail/templates.ts';
import { createMailer } from '../../src/mail/transport.ts';
import { header, parseMime, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';

const FROM = 'Marquee <no-reply@localhost>';
const SERIAL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

interface PngChunk {
  type: string;
  data: Buffer;
}

/** Splits a PNG into its chunks, checking the signature and every CRC. */
function pngChunks(png: Buffer): PngChunk[] {
  assert.deepEqual(png.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks: PngChunk[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const typeAndData = png.subarray(at + 4, at + 8 + length);
    assert.equal(png.readUInt32BE(at + 8 + length), crc32(typeAndData), 'chunk CRC');
    chunks.push({ type: typeAndData.subarray(0, 4).toString('latin1'), data: typeAndData.subarray(4) });
    at += 12 + length;
  }
  return chunks;
}

function eTickets(count: number): ETicketInput {
  return {
    language: 'en',
    organizerName: 'Riverside Hall',
    orderNo: 'M-100042',
    buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' },
    tickets: Array.from({ length: count }, (_, i) => ({
      ticketNo: `M-100042-${String(i + 1).padStart(4, '0')}`,
      serialNo: `SERIAL${String(i).padStart(26, 'A')}`,
      eventTitle: 'Evening Concert',
      ticketTypeName: 'Standard',
      performanceStartsAt: new Date('2026-07-03T17:30:00Z'),
      eventTimeZone: 'Europe/Berlin',
      venueName: 'Main Stage',
      holderName: 'Ada Lovelace',
    })),
  };
}

describe('qrCodePng', () => {
  test('a 1-bit greyscale PNG that is, pixel for pixel, the level-M symbol of the serial with its quiet zone', () => {
    const chunks = pngChunks(qrCodePng(SERIAL));
    assert.deepEqual(
      chunks.map((c) => c.type),
      ['IHDR', 'IDAT', 'IEND'],
    );
    const { modules } = QRCode.create(SERIAL, { errorCorrectionLevel: 'M' });
    assert.equal(modules.size, 25, 'version 2');
    const side = (modules.size + 2 * QR_QUIET_ZONE_MODULES) * QR_MODULE_PX;
    assert.equal(side, 396);
    const ihdr = chunks[0]!.data;
    assert.deepEqual([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ...ihdr.subarray(8)], [side, side, 1, 0, 0, 0, 0]);

    const rowBytes = 1 + Math.ceil(side / 8);
    const pixels = inflateSync(chunks[1]!.data);
    assert.equal(pixels.length, rowBytes * side);
    let dark = 0;
    for (let y = 0; y < side; y++) {
      assert.equal(pixels[y * rowBytes], 0, 'filter: none');
      for (let x = 0; x < side; x++) {
        const row = Math.floor(y / QR_MODULE_PX) - QR_QUIET_ZONE_MODULES;
        const col = Math.floor(x / QR_MODULE_PX) - QR_QUIET_ZONE_MODULES;
        const expectDark: boolean =
          row >= 0 && col >= 0 && row < modules.size && col < modules.size && modules.get(row, col) === 1;
        const isDark = ((pixels[y * rowBytes + 1 + (x >> 3)]! >> (7 - (x & 7))) & 1) === 0;
        if (isDark !== expectDark) assert.fail(`pixel ${x},${y}: ${isDark ? 'dark' : 'light'}`);
        if (isDark) dark++;
      }
    }
    assert.ok(dark > 0);
  });

  test('the same serial gives the same bytes; another serial other bytes', () => {
    assert.deepEqual(qrCodePng(SERIAL), qrCodePng(SERIAL));
    assert.notDeepEqual(qrCodePng(SERIAL), qrCodePng('ABCDEFGHIJKLMNOPQRSTUVWXYZ234568'));
  });
});

describe('render pool', () => {
  let renderer: MailRenderer;
  before(async () => {
    renderer = createRenderPool({ from: FROM, threads: 1 });
    await renderer.render({ kind: 'etickets', input: eTickets(1) }); // the thread starts and loads its modules
  });
  after(async () => {
    await renderer.close();
  });

  test('a 1,000-ticket e-ticket mail renders in a worker thread while this event loop keeps ticking', async () => {
    const input = eTickets(1000);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    let maxGapMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGapMs = Math.max(maxGapMs, now - last);
      last = now;
    }, 1);
    delay.enable();
    const started = performance.now();
    const mail = await renderer.render({ kind: 'etickets', input });
    const elapsedMs = performance.now() - started;
    delay.disable();
    clearInterval(ticker);
    // Rendered on this thread, the longest gap would be the whole render.
    assert.ok(maxGapMs < elapsedMs / 4, `longest gap ${maxGapMs.toFixed(1)} ms of a ${elapsedMs.toFixed(0)} ms render`);
    assert.ok(
      delay.percentile(99) / 1e6 < elapsedMs / 4,
      `event-loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms`,
    );

    assert.deepEqual(mail.envelope, { from: 'no-reply@localhost', to: ['ada@example.test'] });
    const parsed = parseMime(mail.raw.toString('latin1'));
    assert.equal(header(parsed.headers, 'message-id'), mail.messageId);
    assert.equal(header(parsed.headers, 'subject'), 'Your tickets for order M-100042');
    const pngs = parsed.parts.filter((p) => p.contentType === 'image/png');
    assert.equal(pngs.length, 1000);
    for (const i of [0, 499, 999]) {
      assert.deepEqual(pngs[i]!.content, qrCodePng(input.tickets[i]!.serialNo));
      assert.equal(pngs[i]!.filename, `ticket-${input.tickets[i]!.ticketNo}.png`);
    }
    const text = parsed.parts.find((p) => p.contentType === 'text/plain')!.text;
    assert.match(text, /Friday, July 3, 2026 at 7:30\sPM\sGMT\+2 \(Europe\/Berlin\)/);
  });

  test(
    'the render thread runs below normal priority; this thread keeps its own',
    { skip: process.platform !== 'linux' },
    () => {
      // /proc/self/task/<tid>/stat: field 19 is the nice value (after "pid (comm) ").
      const nices = readdirSync('/proc/self/task').map((tid) =>
        Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
      );
      assert.equal(nices[0], 0, 'the main thread (the first task) is not lowered');
      assert.equal(
        nices.filter((nice) => nice === constants.priority.PRIORITY_BELOW_NORMAL).length,
        1,
        `one thread lowered, the render thread: ${nices.join(' ')}`,
      );
    },
  );

  test('a template error rejects the render', async () => {
    const input = eTickets(1);
    input.tickets[0]!.eventTimeZone = 'Not/A_Zone';
    await assert.rejects(renderer.render({ kind: 'etickets', input }), RangeError);
  });
});

describe('pooled SMTP', () => {
  let receiver: SmtpReceiver;
  before(async () => {
    receiver = await startSmtpReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  async function sendFive(options: { smtpMaxMessages?: number }) {
    const mailer = createMailer({ smtpUrl: receiver.url, from: FROM, outboxDir: '/nonexistent', ...options });
    const renderer = createRenderPool({ from: FROM, threads: 1 });
    const connectionsBefore = receiver.connections;
    const messagesBefore = receiver.messages.length;
    try {
      for (let i = 0; i < 5; i++) {
        const result = await mailer.sendComposed(await renderer.render({ kind: 'etickets', input: eTickets(1) }));
        const received = (await receiver.waitFor(messagesBefore + i + 1))[messagesBefore + i]!;
        assert.equal(header(parseMime(received.raw).headers, 'message-id'), result.messageId);
        assert.deepEqual(received.to, ['ada@example.test']);
      }
      return receiver.connections - connectionsBefore;
    } finally {
      mailer.close();
      await renderer.close();
    }
  }

  test('five messages in a row share one connection', async () => {
    assert.equal(await sendFive({}), 1);
  });

  test('a connection is replaced after SMTP_MAX_MESSAGES messages', async () => {
    assert.equal(await sendFive({ smtpMaxMessages: 2 }), 3);
  });
});
