/**
 * `/app/team` (permission `team`): the organizer's members and pending invitations
 * (docs/dashboard.md, "Team"). Invite by e-mail address with a role (inviting an
 * address again sends a new link with the new role), change a member's role, remove a
 * member or withdraw an invitation after a confirming second click. The organizer keeps
 * at least one owner: the API's 409 `last_owner` is shown with its detail.
 */
import { useState } from 'preact/hooks';
import { ConfirmAction } from '../components/confirm-action.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Field } from '../components/field.tsx';
import { SubmitActions } from '../components/form-actions.tsx';
import { EmailField } from '../components/password-input.tsx';
import { answer, dashboard, type Member, type Role } from '../lib/dashboard.ts';
import { fieldId, useFormErrors } from '../lib/form-errors.ts';
import { dateTime } from '../lib/format.ts';
import { ROLES, roleLabel } from '../lib/roles.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';
import { ActionsCol } from '../components/table-headers.tsx';

const PAGE = 100;

/** Every member and invitation, oldest first (a team is small: a page or two). */
async function allMembers(): Promise<Member[]> {
  const members: Member[] = [];
  for (;;) {
    const last = members.at(-1);
    const query = last === undefined ? { limit: PAGE } : { limit: PAGE, starting_after: last.id };
    const page = await answer(dashboard.GET('/dashboard/v1/members', { params: { query } }));
    members.push(...page.data);
    if (!page.has_more) return members;
  }
}

export function Team() {
  useTitle('Team');
  const { organizer } = useSession();
  const members = useAsync(allMembers, []);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>();

  const act = async (work: () => Promise<string>) => {
    setError(undefined);
    setStatus('');
    try {
      setStatus(await work());
    } catch (err) {
      setError(err);
    }
    members.reload();
  };

  const active = members.data?.filter((m) => m.status === 'active') ?? [];
  const invited = members.data?.filter((m) => m.status === 'invited') ?? [];
  return (
    <>
      <h1>Team</h1>
      <p>The people who sign in to {organizer.name}, and what their role lets them do.</p>
      <InviteForm onInvited={(member) => void act(async () => `Invitation sent to ${member.email}.`)} />
      <p role="status" class="status">
        {status}
      </p>
      <ErrorNotice error={error ?? members.error} />
      <h2>Members</h2>
      {members.loading && !members.data ? (
        <p class="loading">Loading…</p>
      ) : (
        <MemberTable
          members={active}
          onRole={(member, role) =>
            void act(async () => {
              await answer(
                dashboard.PATCH('/dashboard/v1/members/{id}', { params: { path: { id: member.id } }, body: { role } }),
              );
              return `${member.name ?? member.email} is now ${roleLabel(role)}.`;
            })
          }
          onRemove={(member) =>
            void act(async () => {
              await remove(member);
              return `${member.name ?? member.email} was removed.`;
            })
          }
        />
      )}
      <h2>Invitations</h2>
      {invited.length === 0 ? (
        <p>No invitation is waiting for an answer.</p>
      ) : (
        <MemberTable
          members={invited}
          onRemove={(member) =>
            void act(async () => {
              await remove(member);
              return `The invitation of ${member.email} was withdrawn.`;
            })
          }
        />
      )}
    </>
  );
}

const remove = (member: Member) =>
  answer(dashboard.DELETE('/dashboard/v1/members/{id}', { params: { path: { id: member.id } } }));

function InviteForm({ onInvited }: { onInvited: (member: Member) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors((param) => (param === 'email' || param === 'role' ? param : undefined));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    errors.clear();
    try {
      const member = await answer(dashboard.POST('/dashboard/v1/members', { body: { email: email.trim(), role } }));
      setEmail('');
      onInvited(member);
    } catch (err) {
      errors.fail(err);
    }
    setBusy(false);
  };
  return (
    <form onSubmit={(e) => void submit(e)}>
      <h2>Invite someone</h2>
      <div class="row">
        <EmailField
          id={fieldId('email')}
          autoComplete="off"
          error={errors.of('email')}
          value={email}
          onInput={setEmail}
        />
        <Field id={fieldId('role')} label="Role" error={errors.of('role')}>
          {(a) => (
            <select {...a} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {roleLabel(r)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorNotice error={errors.general} />
      <SubmitActions label="Send invitation" busyLabel="Sending…" busy={busy} />
    </form>
  );
}

function MemberTable({
  members,
  onRole,
  onRemove,
}: {
  members: Member[];
  /** Absent: the role is shown, not changed (an invitation: invite again for another role). */
  onRole?: (member: Member, role: Role) => void;
  onRemove: (member: Member) => void;
}) {
  const { organizer, body } = useSession();
  return (
    <table class="members">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">E-mail address</th>
          <th scope="col">Role</th>
          <th scope="col">{onRole ? 'Member since' : 'Invited'}</th>
          <ActionsCol />
        </tr>
      </thead>
      <tbody>
        {members.map((m) => {
          const who = m.name ?? m.email;
          const you = m.user_id === body.user.id;
          return (
            <tr key={m.id} data-member={m.email}>
              <td>
                {m.name ?? '—'}
                {you && (
                  <>
                    {' '}
                    <span class="badge">You</span>
                  </>
                )}
              </td>
              <td>{m.email}</td>
              <td>
                {onRole ? (
                  <select
                    aria-label={`Role of ${who}`}
                    value={m.role}
                    onChange={(e) => onRole(m, e.currentTarget.value as Role)}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {roleLabel(r)}
                      </option>
                    ))}
                  </select>
                ) : (
                  roleLabel(m.role)
                )}
              </td>
              <td>{dateTime(String(m.created_at), organizer.timezone)}</td>
              <td>
                <ConfirmAction
                  label={onRole ? 'Remove' : 'Withdraw'}
                  ariaLabel={onRole ? `Remove ${who}` : `Withdraw the invitation of ${m.email}`}
                  confirmLabel={onRole ? `Yes, remove ${who}` : 'Yes, withdraw'}
                  consequence={
                    onRole
                      ? `Remove ${who}? They lose access to this organizer at once.`
                      : `Withdraw the invitation of ${m.email}? Its link stops working.`
                  }
                  onConfirm={() => onRemove(m)}
                />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
