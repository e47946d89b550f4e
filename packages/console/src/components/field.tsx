/**
 * A labelled form control with its error beside it: the API's problem names the field
 * (`param`, docs/errors.md), and the form shows the detail next to that field.
 */
import type { ComponentChildren } from 'preact';

interface FieldProps {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string;
  children: (props: { id: string; 'aria-invalid'?: 'true'; 'aria-describedby'?: string }) => ComponentChildren;
}

export function Field({ id, label, error, hint, children }: FieldProps) {
  const describedBy = [hint !== undefined ? `${id}-hint` : '', error !== undefined ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class={error === undefined ? 'field' : 'field invalid'}>
      <label for={id}>{label}</label>
      {children({
        id,
        ...(error !== undefined ? { 'aria-invalid': 'true' as const } : {}),
        ...(describedBy !== '' ? { 'aria-describedby': describedBy } : {}),
      })}
      {hint !== undefined && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error !== undefined && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
