/**
 * The TOTP second factor and its recovery codes (docs/dashboard.md, "Profile" and
 * "Sign-in failures"), on an injected clock: RFC 6238's own SHA-1 test vectors, one step
 * of drift either way, a step good once, and the enrolment QR code read back with jsQR.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import jsQRModule from 'jsqr';
import {
  hashRecoveryCode,
  looksLikeRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  totpCodeAt,
  totpQrCode,
  totpUri,
  verifyTotp,
} from '../../src/domain/people/totp.ts';

// jsqr is CommonJS; under NodeNext its default export sits one level down (as in test/door/qr-video.test.ts).
const jsQR = jsQRModule.default;

/** RFC 6238, appendix B: the ASCII secret "12345678901234567890" in base32. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
/** 2005-03-18T01:58:31Z, time step 37037037, where RFC 6238's SHA-1 code is 14050471. */
const NOW = new Date(1_111_111_111_000);
const STEP = 37_037_037;
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

describe('TOTP codes', () => {
  test('the codes of RFC 6238 (SHA-1, 6 digits, 30 s)', () => {
    assert.equal(totpCodeAt(RFC_SECRET, new Date(59_000)), '287082');
    assert.equal(totpCodeAt(RFC_SECRET, new Date(1_111_111_109_000)), '081804');
    assert.equal(totpCodeAt(RFC_SECRET, NOW), '050471');
    assert.equal(totpCodeAt(RFC_SECRET, new Date(1_234_567_890_000)), '005924');
    assert.equal(totpCodeAt(RFC_SECRET, new Date(2_000_000_000_000)), '279037');
  });

  test('the current code verifies and answers its time step', () => {
    assert.equal(verifyTotp(RFC_SECRET, '050471', NOW, null), STEP);
    assert.equal(verifyTotp(RFC_SECRET, '050471', at(-1), null), STEP, 'the step began 1 s before NOW');
    assert.equal(verifyTotp(RFC_SECRET, '050471', at(28), null), STEP);
  });

  test('one step of drift either way is accepted; two or three are not', () => {
    assert.equal(verifyTotp(RFC_SECRET, totpCodeAt(RFC_SECRET, at(-30)), NOW, null), STEP - 1);
    assert.equal(verifyTotp(RFC_SECRET, totpCodeAt(RFC_SECRET, at(30)), NOW, null), STEP + 1);
    for (const seconds of [-90, -60, 60, 90])
      assert.equal(verifyTotp(RFC_SECRET, totpCodeAt(RFC_SECRET, at(seconds)), NOW, null), null, `${seconds} s`);
  });

  test('a code is good once: its step, or an earlier one, is refused after it was used', () => {
    const step = verifyTotp(RFC_SECRET, '050471', NOW, null);
    assert.equal(step, STEP);
    assert.equal(verifyTotp(RFC_SECRET, '050471', NOW, step), null, 'the same code again');
    assert.equal(verifyTotp(RFC_SECRET, '050471', at(20), step), null, 'the same code later in its step');
    assert.equal(verifyTotp(RFC_SECRET, totpCodeAt(RFC_SECRET, at(-30)), NOW, step), null, 'an older code');
    const next = totpCodeAt(RFC_SECRET, at(30));
    assert.equal(verifyTotp(RFC_SECRET, next, NOW, step), STEP + 1, 'the next step, within the drift');
    assert.equal(verifyTotp(RFC_SECRET, next, at(30), STEP + 1), null);
    assert.equal(verifyTotp(RFC_SECRET, '050471', NOW, STEP - 1), STEP);
  });

  test('a last step beyond the window (the clock went back) refuses rather than throws', () => {
    assert.equal(verifyTotp(RFC_SECRET, '050471', NOW, STEP + 1), null);
    assert.equal(verifyTotp(RFC_SECRET, '050471', NOW, STEP + 2), null);
    assert.equal(verifyTotp(RFC_SECRET, '050471', NOW, STEP + 1000), null);
  });

  test('anything but six digits is refused', () => {
    for (const code of ['', '50471', '0504710', '05047a', ' 050471', '050 471', '０５０４７１'])
      assert.equal(verifyTotp(RFC_SECRET, code, NOW, null), null, JSON.stringify(code));
  });

  test('a new secret is 160 random bits in base32', () => {
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.notEqual(newTotpSecret(), secret);
    assert.equal(verifyTotp(secret, totpCodeAt(secret, NOW), NOW, null), STEP);
  });
});

/** The RGBA pixels of an 8-bit, non-interlaced PNG (what qrcode writes), for jsQR. */
function decodePng(png: Buffer): { width: number; height: number; rgba: Uint8ClampedArray } {
  assert.deepEqual(png.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let header: Buffer | undefined;
  const idat: Buffer[] = [];
  for (let offset = 8; offset < png.length;) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') header = data;
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  assert.ok(header);
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[header[9]!];
  assert.equal(header[8], 8, 'bit depth');
  assert.equal(header[12], 0, 'not interlaced');
  assert.ok(channels, `colour type ${header[9]}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const upLeft = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      const p = left + up - upLeft;
      const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
      const paeth = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      const predictor = [0, left, up, (left + up) >> 1, paeth][filter];
      assert.notEqual(predictor, undefined, `filter ${filter}`);
      pixels[y * stride + x] = (line[x]! + predictor!) & 0xff;
    }
  }
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const px = pixels.subarray(i * channels, (i + 1) * channels);
    const [r, g, b, a] =
      channels >= 3 ? [px[0]!, px[1]!, px[2]!, px[3] ?? 255] : [px[0]!, px[0]!, px[0]!, px[1] ?? 255];
    rgba.set([r, g, b, a], i * 4);
  }
  return { width, height, rgba };
}

describe('enrolment', () => {
  test('the otpauth URI names the issuer and the address', () => {
    assert.equal(
      totpUri({ secret: RFC_SECRET, email: 'ada@example.com', issuer: 'Marquee' }),
      'otpauth://totp/Marquee:ada%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Marquee',
    );
    assert.equal(
      totpUri({ secret: RFC_SECRET, email: 'ada+box office@example.com', issuer: 'Marquee' }),
      'otpauth://totp/Marquee:ada%2Bbox%20office%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Marquee',
    );
  });

  test('the QR code is a PNG data: URL that reads back as the URI', async () => {
    const uri = totpUri({ secret: newTotpSecret(), email: 'grace.hopper@example.com', issuer: 'Marquee' });
    const url = await totpQrCode(uri);
    const prefix = 'data:image/png;base64,';
    assert.equal(url.slice(0, prefix.length), prefix);
    const { width, height, rgba } = decodePng(Buffer.from(url.slice(prefix.length), 'base64'));
    assert.equal(width, 240);
    assert.equal(height, 240);
    assert.equal(jsQR(rgba, width, height)?.data, uri);
  });
});

describe('recovery codes', () => {
  test('ten distinct codes of two groups of five from an alphabet without 0, o, 1, l or i', () => {
    const codes = newRecoveryCodes();
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const code of codes) {
      assert.match(code, /^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
      assert.equal(looksLikeRecoveryCode(code), true);
      assert.equal(looksLikeRecoveryCode(` ${code.toUpperCase().replace('-', ' ')} `), true);
    }
    assert.notDeepEqual(newRecoveryCodes(), codes);
  });

  test('the hash is SHA-256 of the code in lower case, dashes and spaces removed', () => {
    const abcdefgh = Buffer.from('9c56cc51b374c3ba189210d5b6d4bf57790d351c96c47c02190ecf1e430635ab', 'hex');
    assert.deepEqual(hashRecoveryCode('abcdefgh'), abcdefgh);
    assert.deepEqual(hashRecoveryCode('ABCD-EFGH '), abcdefgh);
    assert.deepEqual(hashRecoveryCode(' abcd efgh'), abcdefgh);
    assert.deepEqual(
      hashRecoveryCode('ABCDE-FGHJK'),
      Buffer.from('22f3f00d7f9cfe6eeefa9b71bdcb093a9080fcf4981d2dbf932648fa15a2d793', 'hex'),
    );
    assert.notDeepEqual(hashRecoveryCode('abcdefgk'), abcdefgh);
  });

  test('a recovery code is told apart from an app code', () => {
    assert.equal(looksLikeRecoveryCode('abcde-fghjk'), true);
    assert.equal(looksLikeRecoveryCode('ABCDE FGHJK'), true);
    assert.equal(looksLikeRecoveryCode('050471'), false);
    assert.equal(looksLikeRecoveryCode('050 471'), false);
    assert.equal(looksLikeRecoveryCode('abcd-efgh'), false);
    assert.equal(looksLikeRecoveryCode('abcde-fghjk-m'), false);
    assert.equal(looksLikeRecoveryCode('abcde_fghjk'), false);
  });
});
