/**
 * The Apple Wallet section of the settings screen (docs/console.md, "Settings"; the
 * settings themselves: docs/tickets.md, "Wallet settings and their keys"): whether tickets
 * get a pass, under which pass type and certificate, until when; the form that stores a
 * certificate (PEM files read in the browser, sent once, the key never shown again); and
 * removing it, asked once. The API checks everything (the key matches the certificate, it
 * has not expired, the identifiers are the certificate's) and its refusal is shown beside
 * the field it names.
 */
import { useState } from 'preact/hooks';
import { ConfirmAction } from './confirm-action.tsx';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { SubmitActions } from './form-actions.tsx';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { dateTime } from '../lib/format.ts';
import {
  deleteAppleWallet,
  getAppleWallet,
  updateAppleWallet,
  type AppleWallet,
  type AppleWalletChange,
} from '../lib/organizer-api.ts';
import { useSession } from '../lib/session.ts';
import { useAsync } from '../lib/use-async.ts';

const FILES = ['certificate_pem', 'private_key_pem', 'wwdr_certificate_pem'] as const;
type FileField = (typeof FILES)[number];
const FIELDS = ['pass_type_identifier', 'team_identifier', ...FILES, 'private_key_passphrase', 'background_color'];

interface Draft {
  passType: string;
  team: string;
  passphrase: string;
  background: string;
}

const emptyDraft = (saved: AppleWallet | undefined): Draft => ({
  passType: saved?.pass_type_identifier ?? '',
  team: saved?.team_identifier ?? '',
  passphrase: '',
  background: '',
});

export function AppleWalletSettings() {
  const loaded = useAsync(getAppleWallet, []);
  if (loaded.error !== undefined && loaded.data === undefined) return <ErrorNotice error={loaded.error} />;
  if (loaded.data === undefined) return <p class="loading">Loading the Apple Wallet settings…</p>;
  return <AppleWalletForm initial={loaded.data} />;
}

function AppleWalletForm({ initial }: { initial: AppleWallet }) {
  const { organizer } = useSession();
  const [saved, setSaved] = useState(initial);
  const [draft, setDraft] = useState(() => emptyDraft(initial));
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [formKey, setFormKey] = useState(0);
  const errors = useFormErrors((param) => (FIELDS.includes(param) ? param : undefined));

  const submit = async (e: Event) => {
    e.preventDefault();
    errors.clear();
    setStatus('');
    // The files are read as they are sent: their text is never kept in the page's state.
    const chosen = new FormData(e.currentTarget as HTMLFormElement);
    const files: Partial<Record<FileField, string>> = {};
    for (const field of FILES) {
      const file = chosen.get(field);
      if (!(file instanceof File) || file.size === 0) {
        errors.failField(field, 'Choose the PEM file.');
        return;
      }
      files[field] = await file.text();
    }
    const change: AppleWalletChange = {
      pass_type_identifier: draft.passType.trim(),
      team_identifier: draft.team.trim(),
      certificate_pem: files.certificate_pem!,
      private_key_pem: files.private_key_pem!,
      wwdr_certificate_pem: files.wwdr_certificate_pem!,
      ...(draft.passphrase !== '' ? { private_key_passphrase: draft.passphrase } : {}),
      ...(draft.background !== '' ? { background_color: draft.background } : {}),
    };
    setBusy(true);
    try {
      const answered = await updateAppleWallet(change);
      setSaved(answered);
      setDraft(emptyDraft(answered));
      setFormKey((key) => key + 1); // empties the file inputs: the key is not kept in the page
      setStatus('Apple Wallet passes are on.');
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };

  const remove = async () => {
    setBusy(true);
    try {
      const answered = await deleteAppleWallet();
      setSaved(answered);
      setDraft(emptyDraft(answered));
      setStatus('Apple Wallet passes are off.');
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };

  return (
    <section aria-labelledby="apple-wallet-heading">
      <h2 id="apple-wallet-heading">Apple Wallet</h2>
      {saved.configured ? (
        <p class="wallet-state">
          Every ticket gets a pass of <strong>{saved.pass_type_identifier}</strong> (team {saved.team_identifier}),
          signed by “{saved.certificate_subject}”, whose certificate expires{' '}
          {dateTime(saved.certificate_expires_at!, organizer.timezone)}.
        </p>
      ) : (
        <p class="wallet-state">
          Off: tickets get no Apple Wallet pass. With a pass type certificate from Apple’s developer account, every
          ticket gets one, in the e-mail and on the order screen.
        </p>
      )}
      <form key={formKey} onSubmit={(e) => void submit(e)} aria-label="Apple Wallet certificate">
        <div class="row">
          <Field id={fieldId('pass_type_identifier')} label="Pass type ID" error={errors.of('pass_type_identifier')}>
            {(a) => (
              <input
                {...a}
                type="text"
                required
                placeholder="pass.com.example.tickets"
                value={draft.passType}
                onInput={(e) => setDraft({ ...draft, passType: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field id={fieldId('team_identifier')} label="Team ID" error={errors.of('team_identifier')}>
            {(a) => (
              <input
                {...a}
                type="text"
                required
                value={draft.team}
                onInput={(e) => setDraft({ ...draft, team: e.currentTarget.value })}
              />
            )}
          </Field>
        </div>
        <Field id={fieldId('certificate_pem')} label="Pass type certificate (PEM)" error={errors.of('certificate_pem')}>
          {(a) => <input {...a} type="file" accept=".pem,.crt,.cer" name="certificate_pem" />}
        </Field>
        <Field
          id={fieldId('private_key_pem')}
          label="Its private key (PEM)"
          hint="Stored encrypted; it is never shown again."
          error={errors.of('private_key_pem')}
        >
          {(a) => <input {...a} type="file" accept=".pem,.key" name="private_key_pem" />}
        </Field>
        <Field
          id={fieldId('private_key_passphrase')}
          label="The key’s passphrase (if it has one)"
          error={errors.of('private_key_passphrase')}
        >
          {(a) => (
            <input
              {...a}
              type="password"
              autoComplete="off"
              value={draft.passphrase}
              onInput={(e) => setDraft({ ...draft, passphrase: e.currentTarget.value })}
            />
          )}
        </Field>
        <Field
          id={fieldId('wwdr_certificate_pem')}
          label="Apple WWDR certificate (PEM)"
          hint="Apple’s intermediate certificate that issued yours."
          error={errors.of('wwdr_certificate_pem')}
        >
          {(a) => <input {...a} type="file" accept=".pem,.crt,.cer" name="wwdr_certificate_pem" />}
        </Field>
        <Field
          id={fieldId('background_color')}
          label="Pass colour (optional)"
          hint="As #rrggbb; Wallet's default when empty."
          error={errors.of('background_color')}
        >
          {(a) => (
            <input
              {...a}
              type="text"
              placeholder="#1a2b3c"
              value={draft.background}
              onInput={(e) => setDraft({ ...draft, background: e.currentTarget.value })}
            />
          )}
        </Field>
        <ErrorNotice error={errors.general} />
        <SubmitActions label="Save the certificate" busyLabel="Checking…" busy={busy}>
          {saved.configured && (
            <ConfirmAction
              label="Remove Apple Wallet"
              confirmLabel="Yes, remove the certificate"
              consequence="From now on no ticket gets an Apple Wallet pass, in e-mails or on the order screen, and the stored key is deleted."
              busy={busy}
              onConfirm={remove}
            />
          )}
        </SubmitActions>
      </form>
      <p role="status" class="status">
        {status}
      </p>
    </section>
  );
}
