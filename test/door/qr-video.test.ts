/**
 * test/helpers/qr-video.ts: the Y4M layout Chromium's fake camera reads, and codes that a
 * QR decoder (jsQR, the door screen's fallback decoder) reads back from the luma plane.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import jsQRModule from 'jsqr';
import { qrFrameLuma, qrVideo } from '../helpers/qr-video.ts';

// jsqr is CommonJS; under NodeNext its default export sits one level down (as in src/http/validation.ts).
const jsQR = jsQRModule.default;

/** The luma plane as RGBA, what a canvas hands jsQR. */
function rgbaOf(luma: Buffer): Uint8ClampedArray {
  const rgba = new Uint8ClampedArray(luma.length * 4);
  for (let i = 0; i < luma.length; i++) rgba.set([luma[i]!, luma[i]!, luma[i]!, 255], i * 4);
  return rgba;
}

describe('QR video for the fake camera', () => {
  test('header, frame count and frame size of a 4:2:0 Y4M file', () => {
    const video = qrVideo(['ONE', 'TWO'], {
      width: 320,
      height: 240,
      fps: 10,
      holdSeconds: 1,
      gapSeconds: 0.5,
      leadSeconds: 1,
    });
    const header = 'YUV4MPEG2 W320 H240 F10:1 Ip A1:1 C420jpeg\n';
    assert.equal(video.subarray(0, header.length).toString(), header);
    const frameBytes = 'FRAME\n'.length + 320 * 240 * 1.5;
    // 1 s lead, then per code 1 s held and 0.5 s gap, at 10 frames a second.
    assert.equal(video.length, header.length + (10 + 2 * 15) * frameBytes);
    const first = header.length;
    assert.equal(video.subarray(first, first + 6).toString(), 'FRAME\n');
    const chroma = video.subarray(first + 6 + 320 * 240, first + frameBytes);
    assert.ok(chroma.every((byte) => byte === 128));
  });

  test('each code frame decodes to its text; blank frames to nothing', () => {
    const serial = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    for (const [width, height] of [
      [640, 480],
      [320, 240],
    ] as const) {
      const luma = qrFrameLuma(serial, width, height);
      assert.equal(jsQR(rgbaOf(luma), width, height)?.data, serial);
      assert.equal(jsQR(rgbaOf(qrFrameLuma(undefined, width, height)), width, height), null);
    }
  });
});
