/**
 * The row under a form: its submit button, disabled while the form is sent (with
 * `busyLabel`, if given, as its text meanwhile), and whatever else belongs beside it
 * (a secondary button, a status line).
 */
import type { ComponentChildren } from 'preact';

export function SubmitActions({
  label,
  busy,
  busyLabel,
  danger = false,
  children,
}: {
  label: string;
  busy: boolean;
  busyLabel?: string;
  danger?: boolean;
  children?: ComponentChildren;
}) {
  return (
    <div class="actions">
      <button type="submit" {...(danger ? { class: 'danger' } : {})} disabled={busy}>
        {busy && busyLabel !== undefined ? busyLabel : label}
      </button>
      {children}
    </div>
  );
}
