/**
 * The Google Wallet section of the settings screen (docs/console.md, "Settings"; the
 * settings themselves: docs/tickets.md, "Google Wallet"): whether the e-mails and the
 * order screen carry an "Add to Google Wallet" link, under which issuer and service
 * account; the form that stores them (the service account's JSON key file, read in the
 * browser when the form is sent, its private key never shown again); and removing them,
 * asked once. The API's refusal is shown beside the field it names.
 */
import { useState } from 'preact/hooks';
import { ConfirmAction } from './confirm-action.tsx';
import { ErrorNotice } from './error-notice.tsx';
import { Field } from './field.tsx';
import { SubmitActions } from './form-actions.tsx';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { deleteGoogleWallet, getGoogleWallet, updateGoogleWallet, type GoogleWallet } from '../lib/organizer-api.ts';
import { useAsync } from '../lib/use-async.ts';

const FIELDS = ['issuer_id', 'service_account_key'];

export function GoogleWalletSettings() {
  const loaded = useAsync(getGoogleWallet, []);
  if (loaded.error !== undefined && loaded.data === undefined) return <ErrorNotice error={loaded.error} />;
  if (loaded.data === undefined) return <p class="loading">Loading the Google Wallet settings…</p>;
  return <GoogleWalletForm initial={loaded.data} />;
}

function GoogleWalletForm({ initial }: { initial: GoogleWallet | null }) {
  const [saved, setSaved] = useState(initial);
  const [issuer, setIssuer] = useState(initial?.issuer_id ?? '');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [formKey, setFormKey] = useState(0);
  const errors = useFormErrors((param) => (FIELDS.includes(param) ? param : undefined));

  const submit = async (e: Event) => {
    e.preventDefault();
    errors.clear();
    setStatus('');
    // The key file is read as it is sent: its text is never kept in the page's state.
    const file = new FormData(e.currentTarget as HTMLFormElement).get('service_account_key');
    if (!(file instanceof File) || file.size === 0) {
      errors.failField('service_account_key', 'Choose the JSON key file of the service account.');
      return;
    }
    setBusy(true);
    try {
      const answered = await updateGoogleWallet({ issuer_id: issuer.trim(), service_account_key: await file.text() });
      setSaved(answered);
      setFormKey((key) => key + 1); // empties the file input
      setStatus('Google Wallet links are on.');
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };

  const remove = async () => {
    setBusy(true);
    try {
      await deleteGoogleWallet();
      setSaved(null);
      setIssuer('');
      setStatus('Google Wallet links are off.');
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };

  return (
    <section aria-labelledby="google-wallet-heading">
      <h2 id="google-wallet-heading">Google Wallet</h2>
      {saved !== null ? (
        <p class="wallet-state">
          Each order’s e-tickets carry an “Add to Google Wallet” link of issuer <strong>{saved.issuer_id}</strong>,
          signed by {saved.service_account_email} (key {saved.key_id}).
        </p>
      ) : (
        <p class="wallet-state">
          Off: the e-tickets carry no Google Wallet link. With an issuer account in the Google Pay &amp; Wallet Console
          and a service account’s key, every order gets one, in the e-mail and on the order screen.
        </p>
      )}
      <form key={formKey} onSubmit={(e) => void submit(e)} aria-label="Google Wallet issuer">
        <Field
          id={fieldId('issuer_id')}
          label="Issuer ID"
          hint="The digits the Google Pay & Wallet Console shows."
          error={errors.of('issuer_id')}
        >
          {(a) => (
            <input
              {...a}
              type="text"
              inputMode="numeric"
              required
              value={issuer}
              onInput={(e) => setIssuer(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          id={fieldId('service_account_key')}
          label="Service account key (JSON)"
          hint="The key file Google Cloud downloads; its private key is stored encrypted and never shown again."
          error={errors.of('service_account_key')}
        >
          {(a) => <input {...a} type="file" accept=".json,application/json" name="service_account_key" />}
        </Field>
        <ErrorNotice error={errors.general} />
        <SubmitActions label="Save Google Wallet" busyLabel="Checking…" busy={busy}>
          {saved !== null && (
            <ConfirmAction
              label="Remove Google Wallet"
              confirmLabel="Yes, remove Google Wallet"
              consequence="From now on no e-mail or order screen carries an Add to Google Wallet link, and the stored key is deleted."
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
