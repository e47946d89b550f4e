import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';
import { UrlVettingError, isAddressAllowed, vetWebhookUrl, type Resolver } from '../../src/webhooks/url-vetting.ts';

const HOST = 'hooks.example.com';
const PUBLIC_V4 = '93.184.215.14';
const ONLY_PUBLIC = 'only public addresses are allowed.';

/** Resolves only the names it is given; anything else fails like NXDOMAIN. No network. */
function fakeResolver(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
  };
}

/** For IP-literal URLs: vetting must decide without any lookup. */
const resolverThatMustNotBeCalled: Resolver = async (hostname) => {
  throw new Error(`resolver called for ${hostname}`);
};

function vet(raw: string, opts: { allowLoopback?: boolean; resolver?: Resolver } = {}): Promise<URL> {
  return vetWebhookUrl(raw, {
    allowLoopback: opts.allowLoopback ?? false,
    resolver: opts.resolver ?? resolverThatMustNotBeCalled,
  });
}

async function assertRejected(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof UrlVettingError, `expected UrlVettingError, got ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  });
}

interface BlockedCase {
  address: string;
  /** The host as it appears in the URL after WHATWG normalization, when it differs from the address. */
  urlHost?: string;
  description: string;
}

const BLOCKED: BlockedCase[] = [
  { address: '0.0.0.0', description: 'an unspecified address' },
  { address: '0.1.2.3', description: 'an unspecified address' },
  { address: '10.0.0.5', description: 'a private address' },
  { address: '10.255.255.255', description: 'a private address' },
  { address: '100.64.0.1', description: 'a carrier-grade NAT address' },
  { address: '100.100.100.200', description: 'a carrier-grade NAT address' }, // Alibaba Cloud metadata
  { address: '127.0.0.1', description: 'a loopback address' },
  { address: '127.255.255.254', description: 'a loopback address' },
  { address: '169.254.169.254', description: 'a link-local address' }, // AWS/GCP/Azure metadata
  { address: '172.16.0.1', description: 'a private address' },
  { address: '172.31.255.255', description: 'a private address' },
  { address: '192.0.0.8', description: 'a reserved address' },
  { address: '192.0.2.1', description: 'a reserved address' },
  { address: '192.168.1.1', description: 'a private address' },
  { address: '198.18.0.1', description: 'a reserved address' },
  { address: '198.19.255.255', description: 'a reserved address' },
  { address: '198.51.100.7', description: 'a reserved address' },
  { address: '203.0.113.9', description: 'a reserved address' },
  { address: '224.0.0.1', description: 'a multicast address' },
  { address: '239.255.255.250', description: 'a multicast address' },
  { address: '240.0.0.1', description: 'a reserved address' },
  { address: '255.255.255.254', description: 'a reserved address' },
  { address: '255.255.255.255', description: 'a broadcast address' },
  { address: '::', urlHost: '[::]', description: 'an unspecified address' },
  { address: '::1', urlHost: '[::1]', description: 'a loopback address' },
  { address: 'fc00::1', urlHost: '[fc00::1]', description: 'a unique local (private) address' },
  { address: 'fd00:ec2::254', urlHost: '[fd00:ec2::254]', description: 'a unique local (private) address' }, // AWS IMDS over IPv6
  { address: 'fe80::1', urlHost: '[fe80::1]', description: 'a link-local address' },
  { address: 'febf:ffff::1', urlHost: '[febf:ffff::1]', description: 'a link-local address' },
  { address: 'ff02::1', urlHost: '[ff02::1]', description: 'a multicast address' },
  { address: '2001:db8::1', urlHost: '[2001:db8::1]', description: 'a reserved address' },
  // IPv6 forms embedding an IPv4 address are judged by that address.
  {
    address: '::ffff:10.0.0.1',
    urlHost: '[::ffff:a00:1]',
    description: 'an IPv4-mapped IPv6 address embedding a private address',
  },
  {
    address: '::ffff:169.254.169.254',
    urlHost: '[::ffff:a9fe:a9fe]',
    description: 'an IPv4-mapped IPv6 address embedding a link-local address',
  },
  {
    address: '::ffff:127.0.0.1',
    urlHost: '[::ffff:7f00:1]',
    description: 'an IPv4-mapped IPv6 address embedding a loopback address',
  },
  {
    address: '64:ff9b::a9fe:a9fe',
    urlHost: '[64:ff9b::a9fe:a9fe]',
    description: 'a NAT64 address embedding a link-local address',
  },
  {
    address: '64:ff9b::a00:1',
    urlHost: '[64:ff9b::a00:1]',
    description: 'a NAT64 address embedding a private address',
  },
  {
    address: '2002:a9fe:a9fe::1',
    urlHost: '[2002:a9fe:a9fe::1]',
    description: 'a 6to4 address embedding a link-local address',
  },
  {
    address: '2002:c0a8:101::1',
    urlHost: '[2002:c0a8:101::1]',
    description: 'a 6to4 address embedding a private address',
  },
  // Teredo is rejected whatever it embeds; this one embeds public server 65.54.227.120 and client 192.0.2.45 XOR-ed.
  {
    address: '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    urlHost: '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
    description: 'a Teredo tunnel address',
  },
  // IPv4-compatible (deprecated ::/96): outside 2000::/3.
  { address: '::a00:1', urlHost: '[::a00:1]', description: 'an address outside the IPv6 global unicast range' },
  { address: '100::1', urlHost: '[100::1]', description: 'a special-purpose address (discard)' },
];

const PUBLIC: Array<{ address: string; urlHost?: string }> = [
  { address: PUBLIC_V4 },
  { address: '8.8.8.8' },
  { address: '1.1.1.1' },
  { address: '2606:4700:4700::1111', urlHost: '[2606:4700:4700::1111]' },
  { address: '::ffff:8.8.8.8', urlHost: '[::ffff:808:808]' },
  { address: '64:ff9b::808:808', urlHost: '[64:ff9b::808:808]' },
  { address: '2002:808:808::1', urlHost: '[2002:808:808::1]' },
];

describe('vetWebhookUrl: non-public ranges', () => {
  for (const { address, urlHost = address, description } of BLOCKED) {
    it(`rejects the IP literal ${urlHost} without a lookup`, async () => {
      await assertRejected(
        vet(`https://${urlHost}/hooks`),
        `Webhook URL host ${urlHost} is ${description}; ${ONLY_PUBLIC}`,
      );
    });

    it(`rejects a hostname resolving to ${address}`, async () => {
      await assertRejected(
        vet(`https://${HOST}/hooks`, { resolver: fakeResolver({ [HOST]: [address] }) }),
        `Webhook URL host ${HOST} resolves to ${address}, ${description}; ${ONLY_PUBLIC}`,
      );
    });
  }
});

describe('vetWebhookUrl: public addresses', () => {
  for (const { address, urlHost = address } of PUBLIC) {
    it(`accepts the IP literal ${urlHost} and a hostname resolving to ${address}`, async () => {
      assert.equal((await vet(`https://${urlHost}/hooks`)).hostname, urlHost);
      const url = await vet(`https://${HOST}/hooks?x=1`, { resolver: fakeResolver({ [HOST]: [address] }) });
      assert.equal(url.href, `https://${HOST}/hooks?x=1`);
    });
  }
});

describe('vetWebhookUrl: IPv4 literals in decimal, octal and hex', () => {
  const cases: Array<[string, string, string]> = [
    ['https://2130706433/', '127.0.0.1', 'a loopback address'],
    ['https://0x7f.1/', '127.0.0.1', 'a loopback address'],
    ['https://017700000001/', '127.0.0.1', 'a loopback address'],
    ['https://0177.0.0.1/', '127.0.0.1', 'a loopback address'],
    ['https://0x7f000001/', '127.0.0.1', 'a loopback address'],
    ['https://167772161/', '10.0.0.1', 'a private address'],
    ['https://0xa.0.0.1/', '10.0.0.1', 'a private address'],
    ['https://0xA9FEA9FE/', '169.254.169.254', 'a link-local address'],
    ['https://0251.0376.0251.0376/', '169.254.169.254', 'a link-local address'],
    ['https://0/', '0.0.0.0', 'an unspecified address'],
  ];
  for (const [raw, host, description] of cases) {
    it(`rejects ${raw} as ${host}`, async () => {
      await assertRejected(vet(raw), `Webhook URL host ${host} is ${description}; ${ONLY_PUBLIC}`);
    });
  }

  it('accepts a public address written in decimal, normalized to a dotted quad', async () => {
    assert.equal((await vet('https://134744072/')).hostname, '8.8.8.8');
  });
});

describe('vetWebhookUrl: every resolved address must be public', () => {
  for (const addresses of [
    [PUBLIC_V4, '10.0.0.5'],
    ['10.0.0.5', PUBLIC_V4],
    ['2606:4700:4700::1111', 'fd00::1'],
  ]) {
    it(`rejects a hostname resolving to ${addresses.join(' and ')}`, async () => {
      const bad = addresses.find((a) => a !== PUBLIC_V4 && a !== '2606:4700:4700::1111');
      const description = bad === '10.0.0.5' ? 'a private address' : 'a unique local (private) address';
      await assertRejected(
        vet(`https://${HOST}/`, { resolver: fakeResolver({ [HOST]: addresses }) }),
        `Webhook URL host ${HOST} resolves to ${bad}, ${description}; ${ONLY_PUBLIC}`,
      );
    });
  }

  it('accepts a hostname whose addresses are all public', async () => {
    await vet(`https://${HOST}/`, { resolver: fakeResolver({ [HOST]: [PUBLIC_V4, '2606:4700:4700::1111'] }) });
  });

  it('rejects a hostname that does not resolve', async () => {
    await assertRejected(
      vet('https://nope.example/', { resolver: fakeResolver({}) }),
      'Webhook URL host could not be resolved.',
    );
  });

  it('rejects a hostname that resolves to no address at all', async () => {
    await assertRejected(
      vet(`https://${HOST}/`, { resolver: fakeResolver({ [HOST]: [] }) }),
      'Webhook URL host could not be resolved.',
    );
  });
});

describe('vetWebhookUrl: scheme, credentials, syntax and length', () => {
  const resolver = fakeResolver({ [HOST]: [PUBLIC_V4] });

  for (const raw of [`http://${HOST}/`, `ftp://${HOST}/`, `wss://${HOST}/`, 'javascript:alert(1)']) {
    it(`rejects ${raw}`, async () => {
      await assertRejected(vet(raw, { resolver }), 'Webhook URL must use https.');
    });
  }

  for (const raw of [`https://user:pass@${HOST}/`, `https://user@${HOST}/`, `https://:pass@${HOST}/`]) {
    it(`rejects embedded credentials in ${raw}`, async () => {
      await assertRejected(vet(raw, { resolver }), 'Webhook URL must not contain a user name or password.');
    });
  }

  for (const raw of ['not a url', 'https://', '', 'https://exa mple.com/', 'https://[::1/']) {
    it(`rejects the malformed URL ${JSON.stringify(raw)}`, async () => {
      await assertRejected(vet(raw, { resolver }), 'Webhook URL is not a valid URL.');
    });
  }

  it('accepts a URL of exactly 2048 characters and rejects one of 2049', async () => {
    const prefix = `https://${HOST}/`;
    const atLimit = prefix + 'a'.repeat(2048 - prefix.length);
    assert.equal(atLimit.length, 2048);
    assert.equal((await vet(atLimit, { resolver })).href, atLimit);
    await assertRejected(vet(atLimit + 'a', { resolver }), 'Webhook URL must be at most 2048 characters.');
  });

  it('keeps the port, path and query', async () => {
    const url = await vet(`https://${HOST}:8443/a/b?c=d`, { resolver });
    assert.equal(url.port, '8443');
    assert.equal(url.pathname + url.search, '/a/b?c=d');
  });
});

describe('vetWebhookUrl: loopback only with allowLoopback', () => {
  const resolver = fakeResolver({ localhost: ['127.0.0.1', '::1'], [HOST]: ['10.0.0.1'] });

  it('rejects loopback by default', async () => {
    await assertRejected(
      vet('https://127.0.0.1:8443/'),
      `Webhook URL host 127.0.0.1 is a loopback address; ${ONLY_PUBLIC}`,
    );
    await assertRejected(vet('https://[::1]/'), `Webhook URL host [::1] is a loopback address; ${ONLY_PUBLIC}`);
    await assertRejected(
      vet('https://localhost/', { resolver }),
      `Webhook URL host localhost resolves to 127.0.0.1, a loopback address; ${ONLY_PUBLIC}`,
    );
  });

  it('accepts 127/8, ::1 and IPv4-mapped loopback with allowLoopback', async () => {
    const loopbacks = [
      'https://127.0.0.1:8443/',
      'https://127.1.2.3/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://2130706433/',
    ];
    for (const raw of loopbacks) {
      await vet(raw, { allowLoopback: true });
    }
    await vet('https://localhost/hooks', { allowLoopback: true, resolver });
  });

  it('keeps every other non-public range rejected with allowLoopback', async () => {
    const cases: Array<[string, string]> = [
      ['https://10.0.0.1/', `Webhook URL host 10.0.0.1 is a private address; ${ONLY_PUBLIC}`],
      ['https://169.254.169.254/', `Webhook URL host 169.254.169.254 is a link-local address; ${ONLY_PUBLIC}`],
      ['https://0.0.0.0/', `Webhook URL host 0.0.0.0 is an unspecified address; ${ONLY_PUBLIC}`],
      ['https://[::]/', `Webhook URL host [::] is an unspecified address; ${ONLY_PUBLIC}`],
      ['https://[fe80::1]/', `Webhook URL host [fe80::1] is a link-local address; ${ONLY_PUBLIC}`],
      // Loopback behind NAT64 or 6to4 would be a gateway's loopback, not ours.
      [
        'https://[64:ff9b::7f00:1]/',
        `Webhook URL host [64:ff9b::7f00:1] is a NAT64 address embedding a loopback address; ${ONLY_PUBLIC}`,
      ],
      [
        'https://[2002:7f00:1::1]/',
        `Webhook URL host [2002:7f00:1::1] is a 6to4 address embedding a loopback address; ${ONLY_PUBLIC}`,
      ],
    ];
    for (const [raw, message] of cases) {
      await assertRejected(vet(raw, { allowLoopback: true }), message);
    }
    await assertRejected(
      vet(`https://${HOST}/`, { allowLoopback: true, resolver }),
      `Webhook URL host ${HOST} resolves to 10.0.0.1, a private address; ${ONLY_PUBLIC}`,
    );
  });
});

describe('isAddressAllowed', () => {
  it('names the matching range, and the embedding form for IPv6 wrappers of IPv4', () => {
    const off = { allowLoopback: false };
    assert.deepEqual(isAddressAllowed('8.8.8.8', off), { ok: true });
    assert.deepEqual(isAddressAllowed('10.1.2.3', off), { ok: false, range: 'private' });
    assert.deepEqual(isAddressAllowed('::ffff:10.1.2.3', off), { ok: false, range: 'ipv4Mapped:private' });
    assert.deepEqual(isAddressAllowed('64:ff9b::7f00:1', off), { ok: false, range: 'nat64:loopback' });
    assert.deepEqual(isAddressAllowed('2002:a00:1::', off), { ok: false, range: '6to4:private' });
    assert.deepEqual(isAddressAllowed('2001:0:4136:e378:8000:63bf:3fff:fdd2', off), { ok: false, range: 'teredo' });
    assert.deepEqual(isAddressAllowed('fe80::1%eth0', off), { ok: false, range: 'linkLocal' });
    assert.deepEqual(isAddressAllowed('64:ff9b:1::a00:1', off), { ok: false, range: 'rfc6052' }); // local-use NAT64
    assert.deepEqual(isAddressAllowed('not-an-ip', off), { ok: false, range: 'invalid' });
  });

  it('lets loopback through only with allowLoopback', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      assert.equal(isAddressAllowed(address, { allowLoopback: false }).ok, false, address);
      assert.equal(isAddressAllowed(address, { allowLoopback: true }).ok, true, address);
    }
  });
});
