/**
 * An organizer's Apple Wallet settings (docs/tickets.md, "Wallet settings and their keys";
 * docs/dashboard.md, "Wallet passes"): the pass type certificate, its private key (stored
 * sealed with WALLET_SECRETS_KEY, never answered), Apple's WWDR certificate and the pass
 * colours. Everything is checked when it is configured, a trial pass included, so a
 * certificate that cannot sign fails here with a 400 and never while e-mails go out.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import {
  deleteAppleWalletSettings as deleteRow,
  findAppleWalletSettings,
  upsertAppleWalletSettings,
  type AppleWalletSettingsRow,
} from '../../db/repositories/apple-wallet.ts';
import type { Executor } from '../../db/transaction.ts';
import { renderApplePass, appleColour, type AppleSigner } from '../../documents/apple-pass.ts';
import { invalid } from '../../errors/domain-error.ts';
import { sealSecret } from '../../lib/secret-box.ts';
import { requireWalletSecretsKey } from './wallet-keys.ts';

interface AppleWalletSettings {
  configured: boolean;
  pass_type_identifier: string | null;
  team_identifier: string | null;
  certificate_subject: string | null;
  certificate_expires_at: string | null;
  background_color: string | null;
  foreground_color: string | null;
  label_color: string | null;
  updated_at: string | null;
}

interface AppleWalletSettingsInput {
  pass_type_identifier: string;
  team_identifier: string;
  certificate_pem: string;
  private_key_pem: string;
  private_key_passphrase?: string;
  wwdr_certificate_pem: string;
  background_color?: string | null;
  foreground_color?: string | null;
  label_color?: string | null;
}

const NOT_CONFIGURED: AppleWalletSettings = {
  configured: false,
  pass_type_identifier: null,
  team_identifier: null,
  certificate_subject: null,
  certificate_expires_at: null,
  background_color: null,
  foreground_color: null,
  label_color: null,
  updated_at: null,
};

function settingsOf(row: AppleWalletSettingsRow): AppleWalletSettings {
  return {
    configured: true,
    pass_type_identifier: row.pass_type_identifier,
    team_identifier: row.team_identifier,
    certificate_subject: new X509Certificate(row.certificate_pem).subject.replace(/\n/g, ', '),
    certificate_expires_at: row.certificate_expires_at.toISOString(),
    background_color: row.background_color,
    foreground_color: row.foreground_color,
    label_color: row.label_color,
    updated_at: row.updated_at.toISOString(),
  };
}

/** GET /dashboard/v1/organizer/wallet/apple. */
export async function getAppleWalletSettings(db: Executor, organizerId: string): Promise<AppleWalletSettings> {
  const row = await findAppleWalletSettings(db, organizerId);
  return row ? settingsOf(row) : NOT_CONFIGURED;
}

function parseCertificate(pem: string, param: string, what: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw invalid(
      'parameter_invalid',
      `${what} is not a PEM certificate ("-----BEGIN CERTIFICATE-----"). Export it from Keychain Access or convert the .p12 with openssl (docs/tickets.md, "Wallet settings and their keys").`,
      param,
    );
  }
}

function parseKey(pem: string, passphrase: string | undefined): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: 'pem', ...(passphrase === undefined ? {} : { passphrase }) });
  } catch {
    throw invalid(
      'parameter_invalid',
      passphrase === undefined && pem.includes('ENCRYPTED')
        ? 'The private key is encrypted: give its private_key_passphrase.'
        : 'The private key is not a PEM private key (or the passphrase is wrong): convert the .p12 with `openssl pkcs12 -in pass.p12 -nocerts -nodes` (docs/tickets.md, "Wallet settings and their keys").',
      'private_key_pem',
    );
  }
}

/** A subject's attribute (`UID`, `OU`), when it has one. */
function subjectField(certificate: X509Certificate, name: string): string | undefined {
  for (const line of certificate.subject.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && line.slice(0, at) === name) return line.slice(at + 1);
  }
  return undefined;
}

function checkColour(value: string | null | undefined, param: string): string | null {
  if (value === undefined || value === null) return null;
  const colour = appleColour(value);
  if (!colour) throw invalid('parameter_invalid', `${param} must be rgb(r, g, b) or #rrggbb.`, param);
  return colour;
}

function checkCertificate(
  input: AppleWalletSettingsInput,
  now: Date,
): { certificate: X509Certificate; key: KeyObject } {
  const certificate = parseCertificate(input.certificate_pem, 'certificate_pem', 'certificate_pem');
  parseCertificate(input.wwdr_certificate_pem, 'wwdr_certificate_pem', 'wwdr_certificate_pem');
  const key = parseKey(input.private_key_pem, input.private_key_passphrase);
  if (!certificate.checkPrivateKey(key)) {
    throw invalid(
      'parameter_invalid',
      'The private key does not match the certificate: give the key exported with this pass type certificate.',
      'private_key_pem',
    );
  }
  const expires = new Date(certificate.validTo);
  if (expires.getTime() < now.getTime()) {
    throw invalid(
      'parameter_invalid',
      `The certificate expired on ${expires.toISOString()}: create a new pass type certificate in the Apple developer account.`,
      'certificate_pem',
    );
  }
  const uid = subjectField(certificate, 'UID');
  if (uid !== undefined && uid !== input.pass_type_identifier) {
    throw invalid(
      'parameter_invalid',
      `The certificate is for the pass type identifier ${uid}, not ${input.pass_type_identifier}.`,
      'pass_type_identifier',
    );
  }
  const ou = subjectField(certificate, 'OU');
  if (ou !== undefined && ou !== input.team_identifier) {
    throw invalid(
      'parameter_invalid',
      `The certificate belongs to the team ${ou}, not ${input.team_identifier}.`,
      'team_identifier',
    );
  }
  return { certificate, key };
}

const TRIAL_START = new Date('2030-01-01T19:00:00Z');

/** Signs a sample pass, so a certificate that cannot sign answers 400 now. */
async function trialSigning(signer: AppleSigner): Promise<void> {
  try {
    await renderApplePass(
      {
        language: 'en',
        organizerName: 'Marquee',
        orderId: '00000000-0000-0000-0000-000000000000',
        orderNo: 'TRIAL',
        currency: 'EUR',
        paperSize: 'a4',
        tickets: [],
      },
      {
        id: '00000000-0000-0000-0000-000000000000',
        ticketNo: 'TRIAL-1',
        serialNo: 'TRIAL',
        eventId: '00000000-0000-0000-0000-000000000000',
        eventTitle: 'Trial',
        performanceId: '00000000-0000-0000-0000-000000000000',
        performanceStartsAt: TRIAL_START,
        performanceEndsAt: TRIAL_START,
        eventTimeZone: 'UTC',
        venueName: null,
        ticketTypeName: 'Trial',
        priceMinor: 0,
        holderName: 'Trial',
      },
      signer,
    );
  } catch (error) {
    throw invalid(
      'parameter_invalid',
      `A trial pass could not be signed with this certificate: ${error instanceof Error ? error.message : String(error)}`,
      'certificate_pem',
    );
  }
}

/**
 * PUT /dashboard/v1/organizer/wallet/apple: checks and stores the settings, replacing any.
 * No secrets key configured: 409 `invalid_state` telling the operator what to set.
 */
export async function updateAppleWalletSettings(
  db: Executor,
  organizerId: string,
  input: AppleWalletSettingsInput,
  secretsKey: Buffer | undefined,
  now: Date = new Date(),
): Promise<AppleWalletSettings> {
  const sealingKey = requireWalletSecretsKey(secretsKey);
  const colours = {
    background_color: checkColour(input.background_color, 'background_color'),
    foreground_color: checkColour(input.foreground_color, 'foreground_color'),
    label_color: checkColour(input.label_color, 'label_color'),
  };
  const { certificate, key } = checkCertificate(input, now);
  // Stored unencrypted inside the seal: the passphrase is not kept.
  const privateKeyPem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
  await trialSigning({
    passTypeIdentifier: input.pass_type_identifier,
    teamIdentifier: input.team_identifier,
    certificatePem: input.certificate_pem,
    privateKeyPem,
    wwdrCertificatePem: input.wwdr_certificate_pem,
    backgroundColor: colours.background_color,
    foregroundColor: colours.foreground_color,
    labelColor: colours.label_color,
  });
  const row = await upsertAppleWalletSettings(db, organizerId, {
    pass_type_identifier: input.pass_type_identifier,
    team_identifier: input.team_identifier,
    certificate_pem: input.certificate_pem,
    sealed_private_key: sealSecret(privateKeyPem, sealingKey),
    wwdr_certificate_pem: input.wwdr_certificate_pem,
    certificate_expires_at: new Date(certificate.validTo),
    ...colours,
  });
  return settingsOf(row);
}

/** DELETE /dashboard/v1/organizer/wallet/apple: no more passes; answers the unconfigured settings. */
export async function deleteAppleWalletSettings(db: Executor, organizerId: string): Promise<AppleWalletSettings> {
  await deleteRow(db, organizerId);
  return NOT_CONFIGURED;
}
