/**
 * A form's errors: the API's problem names the field at fault (`param`, a dotted path
 * such as `performances.0.capacity`; docs/errors.md), so its `detail` is shown beside that
 * field; an error that names no field of the form is shown above the submit button.
 */
import { useState } from 'preact/hooks';
import { MarqueeApiError } from '@marquee/sdk';

interface FormErrors {
  /** The error of one field (by the API's dotted path), if any. */
  of: (path: string) => string | undefined;
  /** The error that belongs to no field on the form (shown with its request id). */
  general: unknown;
  /** Records a failed submission: a field error if the form has that field, else a general one. */
  fail: (error: unknown) => void;
  /** A field error found before sending (a value that cannot be converted). */
  failField: (path: string, detail: string) => void;
  clear: () => void;
}

/**
 * `fieldOf` maps the API's `param` to the form field that shows it (often the same path),
 * or undefined when the form has no such field.
 */
export function useFormErrors(fieldOf: (param: string) => string | undefined): FormErrors {
  const [byField, setByField] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<unknown>();
  return {
    of: (path) => byField[path],
    general,
    fail: (error) => {
      const field = error instanceof MarqueeApiError && error.param !== undefined ? fieldOf(error.param) : undefined;
      if (field !== undefined && error instanceof MarqueeApiError) {
        setByField({ [field]: error.detail });
        setGeneral(undefined);
        focusField(field);
      } else {
        setByField({});
        setGeneral(error);
      }
    },
    failField: (path, detail) => {
      setByField({ [path]: detail });
      setGeneral(undefined);
      focusField(path);
    },
    clear: () => {
      setByField({});
      setGeneral(undefined);
    },
  };
}

/** The id of a field's control: the API's dotted path with dots as dashes (`performances-0-capacity`). */
export const fieldId = (path: string) => `f-${path.replaceAll('.', '-')}`;

/** Moves the keyboard focus to the field at fault, after the error has rendered. */
function focusField(path: string): void {
  requestAnimationFrame(() => document.getElementById(fieldId(path))?.focus());
}
