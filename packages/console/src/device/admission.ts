/**
 * The admission rule the server decides check-ins with, bundled into the device app so an
 * offline verdict is the one the server would give on the same facts (docs/door.md,
 * "Verdicts"). The one import of the server's code in the console: the file is
 * pure and imports nothing.
 */
// eslint-disable-next-line no-restricted-imports -- the rule matches Node's `domain` module by name; this is src/domain's pure admission rule, not Node's.
export {
  admissionOf,
  type Admission,
  type AdmissionFacts,
  type AdmissionRefusal,
} from '../../../../src/domain/tickets/admission.ts';
