/**
 * `/app/settings` (permission `team`: owners): the organizer's settings (docs/dashboard.md,
 * "Organizer settings"): name, default time zone, currency, box-office fee, tax rate,
 * contact and sender e-mail addresses, the language of buyers' e-mails, PDF tickets and
 * passes (English when none is set) and the PDF tickets' paper size, then the wallet passes'
 * certificates (../components/apple-wallet-settings.tsx, google-wallet-settings.tsx). Saved with one PATCH of the fields that changed;
 * the header then shows the new name (the session body is asked again). The currency
 * cannot change once the organizer has an order (`currency_locked`): its select is
 * disabled, with the reason beside it.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { AppleWalletSettings } from '../components/apple-wallet-settings.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { GoogleWalletSettings } from '../components/google-wallet-settings.tsx';
import { Field } from '../components/field.tsx';
import { SubmitActions } from '../components/form-actions.tsx';
import { answer, dashboard } from '../lib/dashboard.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { minorDigits, parseMoney } from '../lib/format.ts';
import { TICKET_LANGUAGES } from '../lib/languages.ts';
import { getSettings, updateSettings, type OrganizerSettings, type SettingsChange } from '../lib/organizer-api.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';

const FIELDS = [
  'name',
  'timezone',
  'currency',
  'box_office_fee_minor',
  'tax_rate_bps',
  'contact_email',
  'sender_email',
  'default_language',
  'ticket_paper_size',
] as const;
type FieldName = (typeof FIELDS)[number];

/** What the form shows: every value as typed text. */
interface Draft {
  name: string;
  timezone: string;
  currency: string;
  fee: string;
  tax: string;
  contactEmail: string;
  senderEmail: string;
  /** A language tag; English when the organizer has none. */
  language: string;
  paperSize: 'a4' | 'letter';
}

/** A minor-unit amount as the major-unit text a person types: 250 EUR → "2.50", 300 JPY → "300". */
function majorText(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  return (minor / 10 ** digits).toFixed(digits);
}

/** Basis points as a percentage: 1900 → "19", 750 → "7.5", 1 → "0.01". */
const percentText = (bps: number): string => String(bps / 100);

/** A percentage typed by a person ("19", "7.5", "0.25") as basis points, or undefined. */
function parsePercent(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d{1,3}(?:\.\d{1,2})?$/.test(trimmed)) return undefined;
  const [whole = '0', fraction = ''] = trimmed.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

const draftOf = (s: OrganizerSettings): Draft => ({
  name: s.name,
  timezone: s.timezone,
  currency: s.currency,
  fee: majorText(s.box_office_fee_minor, s.currency),
  tax: percentText(s.tax_rate_bps),
  contactEmail: s.contact_email ?? '',
  senderEmail: s.sender_email ?? '',
  language: s.default_language ?? 'en',
  paperSize: s.ticket_paper_size,
});

/** The IANA zones this browser knows (with the saved one, should it be missing: "UTC" is not always listed). */
function zonesWith(current: string): string[] {
  const zones = Intl.supportedValuesOf('timeZone');
  return zones.includes(current) ? zones : [current, ...zones].sort();
}

/** The ISO 4217 codes this browser knows, with the saved one. */
function currenciesWith(current: string): string[] {
  const codes = Intl.supportedValuesOf('currency');
  return codes.includes(current) ? codes : [current, ...codes].sort();
}

const currencyNames = new Intl.DisplayNames(undefined, { type: 'currency' });

export function Settings() {
  useTitle('Settings');
  const loaded = useAsync(getSettings, []);
  if (loaded.error !== undefined && loaded.data === undefined) return <ErrorNotice error={loaded.error} />;
  if (loaded.data === undefined) return <p class="loading">Loading the settings…</p>;
  return <SettingsForm settings={loaded.data} />;
}

function SettingsForm({ settings: initial }: { settings: OrganizerSettings }) {
  const { update } = useSession();
  const [saved, setSaved] = useState(initial);
  const [draft, setDraft] = useState(() => draftOf(initial));
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const errors = useFormErrors((param) => (FIELDS.includes(param as FieldName) ? param : undefined));
  const zones = useMemo(() => zonesWith(saved.timezone), [saved.timezone]);
  const currencies = useMemo(() => currenciesWith(saved.currency), [saved.currency]);
  useEffect(() => setDraft(draftOf(saved)), [saved]);

  const set = (key: keyof Draft) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [key]: e.currentTarget.value });

  const submit = async (e: Event) => {
    e.preventDefault();
    errors.clear();
    setStatus('');
    const fee = parseMoney(draft.fee, draft.currency);
    if (fee === undefined) {
      errors.failField(
        'box_office_fee_minor',
        minorDigits(draft.currency) === 0
          ? `Enter the fee as a whole number of ${draft.currency}, such as 300.`
          : `Enter the fee in ${draft.currency} with at most ${minorDigits(draft.currency)} decimals, such as 2.50.`,
      );
      return;
    }
    const tax = parsePercent(draft.tax);
    if (tax === undefined) {
      errors.failField(
        'tax_rate_bps',
        'Enter the tax rate as a percentage with at most two decimals, such as 19 or 7.5.',
      );
      return;
    }
    const next: Required<SettingsChange> = {
      name: draft.name.trim(),
      timezone: draft.timezone,
      currency: draft.currency,
      box_office_fee_minor: fee,
      tax_rate_bps: tax,
      contact_email: draft.contactEmail.trim() === '' ? null : draft.contactEmail.trim(),
      sender_email: draft.senderEmail.trim() === '' ? null : draft.senderEmail.trim(),
      // English as shown for "none set" is no change; another choice is sent as its tag.
      default_language: draft.language === (saved.default_language ?? 'en') ? saved.default_language : draft.language,
      ticket_paper_size: draft.paperSize,
    };
    // Only what changed is sent; an emptied e-mail address is cleared (null).
    const change: SettingsChange = {};
    for (const key of FIELDS) if (next[key] !== saved[key]) Object.assign(change, { [key]: next[key] });
    if (Object.keys(change).length === 0) {
      setStatus('Nothing to save: the settings are as they were.');
      return;
    }
    setBusy(true);
    try {
      const answered = await updateSettings(change);
      setSaved(answered);
      setStatus('Settings saved.');
      // The header shows the organizer's name and the screens use its currency and zone: the session body says them.
      update(await answer(dashboard.GET('/dashboard/v1/session')));
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };

  return (
    <>
      <h1>Settings</h1>
      <p>What {saved.name} sells in, charges at the box office and writes from.</p>
      <form onSubmit={(e) => void submit(e)} aria-label="Organizer settings">
        <Field id={fieldId('name')} label="Name" error={errors.of('name')}>
          {(a) => <input {...a} type="text" required value={draft.name} onInput={set('name')} />}
        </Field>
        <Field
          id={fieldId('timezone')}
          label="Default time zone"
          hint="New events start in this zone; times that belong to no event are shown in it."
          error={errors.of('timezone')}
        >
          {(a) => (
            <select {...a} value={draft.timezone} onChange={set('timezone')}>
              {zones.map((zone) => (
                <option key={zone} value={zone}>
                  {zone}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id={fieldId('currency')}
          label="Currency"
          hint={
            saved.currency_locked
              ? `The currency stays ${saved.currency}: ${saved.name} has orders in it, and their amounts cannot change currency.`
              : 'Prices, fees and orders are in this currency. It cannot change once there is an order.'
          }
          error={errors.of('currency')}
        >
          {(a) => (
            <select {...a} value={draft.currency} disabled={saved.currency_locked} onChange={set('currency')}>
              {currencies.map((code) => (
                <option key={code} value={code}>
                  {code} · {currencyNames.of(code) ?? code}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div class="row">
          <Field
            id={fieldId('box_office_fee_minor')}
            label={`Box-office fee (${draft.currency})`}
            hint="A service fee added to every ticket of an order."
            error={errors.of('box_office_fee_minor')}
          >
            {(a) => <input {...a} type="text" inputMode="decimal" value={draft.fee} onInput={set('fee')} />}
          </Field>
          <Field
            id={fieldId('tax_rate_bps')}
            label="Tax rate (%)"
            hint="Charged on each order's tickets and fees, such as 19 or 7.5."
            error={errors.of('tax_rate_bps')}
          >
            {(a) => <input {...a} type="text" inputMode="decimal" value={draft.tax} onInput={set('tax')} />}
          </Field>
        </div>
        <Field
          id={fieldId('contact_email')}
          label="Contact e-mail (optional)"
          hint="Where buyers can reach the organizer; replies to its mails come here unless a sender address is set."
          error={errors.of('contact_email')}
        >
          {(a) => (
            <input {...a} type="email" autoComplete="off" value={draft.contactEmail} onInput={set('contactEmail')} />
          )}
        </Field>
        <Field
          id={fieldId('sender_email')}
          label="Sender e-mail (optional)"
          hint="Replies to receipts and e-tickets go here. The mails come from Marquee's address, in the organizer's name."
          error={errors.of('sender_email')}
        >
          {(a) => (
            <input {...a} type="email" autoComplete="off" value={draft.senderEmail} onInput={set('senderEmail')} />
          )}
        </Field>
        <div class="row">
          <Field
            id={fieldId('default_language')}
            label="Ticket language"
            hint="Buyers' e-mails, PDF tickets and wallet passes speak it, unless an event sets its own."
            error={errors.of('default_language')}
          >
            {(a) => (
              <select {...a} value={draft.language} onChange={set('language')}>
                {TICKET_LANGUAGES.map((language) => (
                  <option key={language.tag} value={language.tag} lang={language.tag}>
                    {language.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            id={fieldId('ticket_paper_size')}
            label="Paper size"
            hint="The page size of the PDF tickets."
            error={errors.of('ticket_paper_size')}
          >
            {(a) => (
              <select {...a} value={draft.paperSize} onChange={set('paperSize')}>
                <option value="a4">A4</option>
                <option value="letter">Letter</option>
              </select>
            )}
          </Field>
        </div>
        <ErrorNotice error={errors.general} />
        <SubmitActions label="Save settings" busyLabel="Saving…" busy={busy} />
      </form>
      <p role="status" class="status">
        {status}
      </p>
      <AppleWalletSettings />
      <GoogleWalletSettings />
    </>
  );
}
