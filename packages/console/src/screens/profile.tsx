/**
 * `/app/profile`: the signed-in person's own account (docs/dashboard.md, "Profile" and
 * "The session API"): name, password, the authenticator app (TOTP: enrol with its QR
 * code or key, confirm with a code, then the ten recovery codes shown once; remove it
 * with the password), and the browsers signed in to the account, each of which can be
 * ended, or all at once.
 */
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Field } from '../components/field.tsx';
import { SubmitActions } from '../components/form-actions.tsx';
import { NewPasswordField, PasswordField } from '../components/password-input.tsx';
import { answer, dashboard, type OwnSession, type TotpEnrolment } from '../lib/dashboard.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { dateTime } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';
import { ActionsCol } from '../components/table-headers.tsx';

/** Times of the person's own sessions belong to no event: shown in the browser's zone. */
const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function Profile() {
  useTitle('Profile');
  const { body } = useSession();
  const sessions = useAsync(() => answer(dashboard.GET('/dashboard/v1/session/sessions')), []);
  return (
    <>
      <h1>Profile</h1>
      <p>
        Signed in as <strong>{body.user.email}</strong>.
      </p>
      <NameForm />
      <PasswordForm onChanged={sessions.reload} />
      <Authenticator />
      <h2>Where you are signed in</h2>
      <ErrorNotice error={sessions.error} />
      {sessions.data && <SessionList sessions={sessions.data.data} onEnded={sessions.reload} />}
    </>
  );
}

function NameForm() {
  const { body, update } = useSession();
  const [name, setName] = useState(body.user.name);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors((param) => (param === 'name' ? param : undefined));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setSaved(false);
    errors.clear();
    try {
      update(await answer(dashboard.PATCH('/dashboard/v1/profile', { body: { name: name.trim() } })));
      setSaved(true);
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };
  return (
    <form onSubmit={(e) => void submit(e)}>
      <h2>Name</h2>
      <Field id={fieldId('name')} label="Name" error={errors.of('name')}>
        {(a) => (
          <input {...a} required autoComplete="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        )}
      </Field>
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Save name" busy={busy}>
        <span role="status">{saved ? 'Name saved.' : ''}</span>
      </SubmitActions>
    </form>
  );
}

function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const { body, update } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors((param) =>
    param === 'current_password' || param === 'new_password' ? param : undefined,
  );
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setSaved(false);
    errors.clear();
    try {
      const changed = await answer(
        dashboard.POST('/dashboard/v1/profile/password', { body: { current_password: current, new_password: next } }),
      );
      update(changed);
      setCurrent('');
      setNext('');
      setSaved(true);
      onChanged();
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };
  return (
    <form onSubmit={(e) => void submit(e)}>
      <h2>Password</h2>
      <input type="text" hidden readOnly autoComplete="username" value={body.user.email} />
      <PasswordField
        id={fieldId('current_password')}
        label="Current password"
        autoComplete="current-password"
        error={errors.of('current_password')}
        value={current}
        onInput={setCurrent}
      />
      <NewPasswordField
        id={fieldId('new_password')}
        label="New password"
        error={errors.of('new_password')}
        value={next}
        onInput={setNext}
      />
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Change password" busy={busy}>
        <span role="status">{saved ? 'Password changed. Every other session of your account has ended.' : ''}</span>
      </SubmitActions>
    </form>
  );
}

function Authenticator() {
  const { body, update } = useSession();
  const [enrolment, setEnrolment] = useState<TotpEnrolment>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  const start = () => act(async () => setEnrolment(await answer(dashboard.POST('/dashboard/v1/profile/totp'))));
  const confirm = (code: string) =>
    act(async () => {
      const confirmed = await answer(dashboard.POST('/dashboard/v1/profile/totp/confirm', { body: { code } }));
      setRecoveryCodes(confirmed.recovery_codes);
      setEnrolment(undefined);
      update(await answer(dashboard.GET('/dashboard/v1/session')));
    });
  const remove = (password: string) =>
    act(async () => update(await answer(dashboard.POST('/dashboard/v1/profile/totp/remove', { body: { password } }))));

  return (
    <section aria-labelledby="totp-heading">
      <h2 id="totp-heading">Authenticator app</h2>
      {recoveryCodes ? (
        <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(undefined)} />
      ) : body.user.totp_enabled ? (
        <>
          <p>
            <span class="badge good">On</span> Signing in asks for a code from your authenticator app after the
            password.
          </p>
          <PasswordAction label="Remove authenticator app" busy={busy} onSubmit={(password) => void remove(password)} />
        </>
      ) : enrolment ? (
        <Enrol enrolment={enrolment} busy={busy} onConfirm={(code) => void confirm(code)} />
      ) : (
        <>
          <p>
            <span class="badge">Off</span> With an authenticator app, signing in also asks for the six-digit code it
            shows, so a stolen password alone is not enough.
          </p>
          <button type="button" disabled={busy} onClick={() => void start()}>
            Set up an authenticator app
          </button>
        </>
      )}
      <ErrorNotice error={error} />
    </section>
  );
}

function Enrol({
  enrolment,
  busy,
  onConfirm,
}: {
  enrolment: TotpEnrolment;
  busy: boolean;
  onConfirm: (code: string) => void;
}) {
  const [code, setCode] = useState('');
  return (
    <div class="totp-enrol">
      <p>Scan this QR code with your authenticator app, or type the key below into it.</p>
      <img class="totp-qr" src={enrolment.qr_code} alt="QR code of the key, for your authenticator app" />
      <p>
        Key: <code class="secret">{enrolment.secret}</code>
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm(code.replace(/\s+/g, ''));
        }}
      >
        <Field id="totp-code" label="Authentication code" hint="The six digits the app shows now">
          {(a) => (
            <input
              {...a}
              required
              autoComplete="one-time-code"
              inputMode="numeric"
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          )}
        </Field>
        <SubmitActions label="Turn on" busy={busy} />
      </form>
    </div>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div class="notice ok" role="status">
      <p>
        <strong>The authenticator app is on.</strong> Keep these recovery codes somewhere safe: each one signs you in
        once without the app. They are shown only now.
      </p>
      <ol class="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <button type="button" onClick={onDone}>
        I have kept them
      </button>
    </div>
  );
}

/** A form that asks for the password before an action (removing the authenticator app). */
function PasswordAction({
  label,
  busy,
  onSubmit,
}: {
  label: string;
  busy: boolean;
  onSubmit: (password: string) => void;
}) {
  const [password, setPassword] = useState('');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(password);
      }}
    >
      <PasswordField
        id="totp-remove-password"
        label="Your password"
        autoComplete="current-password"
        hint="Removing the app needs your password"
        value={password}
        onInput={setPassword}
      />
      <SubmitActions label={label} busy={busy} danger />
    </form>
  );
}

function SessionList({ sessions, onEnded }: { sessions: OwnSession[]; onEnded: () => void }) {
  const { signOut } = useSession();
  const [error, setError] = useState<unknown>();
  const end = async (id: string) => {
    setError(undefined);
    try {
      await answer(dashboard.DELETE('/dashboard/v1/session/sessions/{id}', { params: { path: { id } } }));
      onEnded();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <table class="sessions">
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">IP address</th>
            <th scope="col">Signed in</th>
            <th scope="col">Last used</th>
            <ActionsCol />
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.id} data-current={s.current ? 'true' : undefined}>
              <td>{s.user_agent ?? 'Unknown device'}</td>
              <td>{s.ip ?? '—'}</td>
              <td>{dateTime(String(s.created_at), LOCAL_ZONE)}</td>
              <td>{dateTime(String(s.last_seen_at), LOCAL_ZONE)}</td>
              <td>
                {s.current ? (
                  <span class="badge good">This device</span>
                ) : (
                  <button type="button" class="secondary" onClick={() => void end(s.id)}>
                    End session
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorNotice error={error} />
      <div class="actions">
        <button type="button" class="danger" onClick={() => void signOut(true)}>
          Sign out everywhere
        </button>
      </div>
    </>
  );
}
