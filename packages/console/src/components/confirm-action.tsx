/**
 * A destructive action asked once (docs/console.md, "Asking before a destructive change"):
 * the first click shows what the action will do, in words, with "Yes, …" and "Cancel";
 * only the second click runs it. The sentence is announced (role="alert") and the "Yes"
 * button takes the focus, so the keyboard user confirms with Enter or backs out with
 * Escape or the Cancel button (the focus then returns to the first button).
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export function ConfirmAction({
  label,
  confirmLabel,
  consequence,
  onConfirm,
  busy = false,
  disabled = false,
  ariaLabel,
}: {
  /** The first button's text: "Cancel order". */
  label: string;
  /** The confirming button's text: "Yes, cancel order 1042". */
  confirmLabel: string;
  /** What the action will do, said before it is done. */
  consequence: ComponentChildren;
  onConfirm: () => void | Promise<void>;
  busy?: boolean;
  disabled?: boolean;
  /** An accessible name for the first button when its text alone is ambiguous in a list. */
  ariaLabel?: string;
}) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  const backedOut = useRef(false);
  // A layout effect: the focus moves in the same task as the render that replaced the
  // focused button, so a key pressed next never lands on the page body.
  useLayoutEffect(() => {
    if (asking) yes.current?.focus();
    else if (backedOut.current) first.current?.focus();
    backedOut.current = false;
  }, [asking]);
  const backOut = () => {
    backedOut.current = true;
    setAsking(false);
  };
  if (!asking)
    return (
      <button
        type="button"
        class="secondary"
        ref={first}
        disabled={disabled || busy}
        {...(ariaLabel !== undefined ? { 'aria-label': ariaLabel } : {})}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  return (
    <span
      class="confirm"
      onKeyDown={(e) => {
        if (e.key === 'Escape') backOut();
      }}
    >
      <span role="alert" class="consequence">
        {consequence}
      </span>{' '}
      <button
        type="button"
        class="danger"
        ref={yes}
        disabled={busy}
        onClick={() => {
          setAsking(false);
          void onConfirm();
        }}
      >
        {confirmLabel}
      </button>{' '}
      <button type="button" class="secondary" onClick={backOut}>
        Cancel
      </button>
    </span>
  );
}
