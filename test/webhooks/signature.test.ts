import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, secretPreview, signWebhook } from '../../src/webhooks/signature.ts';

describe('signWebhook', () => {
  it('reproduces the Standard Webhooks reference vector', () => {
    const signature = signWebhook(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('produces signatures the official standardwebhooks verifier accepts', () => {
    const secret = generateWebhookSecret();
    const id = 'evt_01HZX3';
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: 'order.created', timestamp: new Date().toISOString(), data: { note: 'é ✓' } });
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, id, timestamp, body),
    };
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it('is rejected by the verifier under another secret or for another body', () => {
    const secret = generateWebhookSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const body = '{"a":1}';
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, 'evt_1', timestamp, body),
    };
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers));
    assert.throws(() => new Webhook(secret).verify('{"a":2}', headers));
  });

  it('refuses a secret without the whsec_ prefix', () => {
    assert.throws(() => signWebhook('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_1', 1, '{}'), /must start with whsec_/);
  });
});

describe('generateWebhookSecret', () => {
  it('is whsec_ followed by base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    assert.ok(key.length >= 24);
    assert.equal(key.length, 32);
    assert.equal(key.toString('base64'), secret.slice('whsec_'.length));
  });

  it('is different every time', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    assert.equal(secrets.size, 50);
  });
});

describe('secretPreview', () => {
  it('shows whsec_ and four characters at each end of the key', () => {
    assert.equal(secretPreview('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), 'whsec_MfKQ…LaSw');
  });

  it('never reveals more than 8 characters of key material', () => {
    for (let i = 0; i < 20; i++) {
      const secret = generateWebhookSecret();
      const preview = secretPreview(secret);
      assert.ok(preview.startsWith('whsec_'));
      const revealed = preview.slice('whsec_'.length).replace('…', '');
      assert.ok(revealed.length <= 8, preview);
      assert.ok(secret.startsWith(`whsec_${revealed.slice(0, 4)}`));
    }
  });

  it('skips base64 padding and reveals nothing of a short key', () => {
    assert.equal(secretPreview('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=='), 'whsec_AAAA…AAAA');
    assert.equal(secretPreview('whsec_c2hvcnQ='), 'whsec_…');
  });
});
