/**
 * A pass type certificate as Apple issues one, made with the openssl CLI for tests
 * (docs/tickets.md, "Wallet settings and their keys"): a CA standing in for Apple's WWDR
 * intermediate, a signer certificate whose subject names the pass type (UID) and team (OU),
 * its key, and an unrelated key. All in a temporary directory, as PEM files and text.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PassCertificates {
  /** The directory holding ca.pem, signer.pem, signer.key and other.key. */
  dir: string;
  /** Each file's PEM text, by file name. */
  pem: Record<'ca.pem' | 'signer.pem' | 'signer.key' | 'other.key', string>;
  remove(): Promise<void>;
}

export async function makePassCertificates(passType: string, team: string): Promise<PassCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'marquee-apple-'));
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  const newKey = ['-newkey', 'rsa:2048', '-nodes'];
  await Promise.all([
    openssl(
      'req',
      '-x509',
      ...newKey,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '3650',
      '-subj',
      '/CN=Test WWDR CA',
    ),
    openssl(
      'req',
      ...newKey,
      '-keyout',
      'signer.key',
      '-out',
      'signer.csr',
      '-subj',
      `/UID=${passType}/CN=Pass Type ID: ${passType}/OU=${team}/O=Marquee Test/C=DE`,
    ),
    openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'other.key'),
  ]);
  await openssl(
    'x509',
    '-req',
    '-in',
    'signer.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'signer.pem',
    '-days',
    '365',
  );
  const names = ['ca.pem', 'signer.pem', 'signer.key', 'other.key'] as const;
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')));
  return {
    dir,
    pem: Object.fromEntries(names.map((name, i) => [name, texts[i]!])) as PassCertificates['pem'],
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
