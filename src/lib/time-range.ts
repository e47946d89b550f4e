/**
 * The one rule for a list's time range, `<field>_gte` (inclusive) and `<field>_lt`
 * (exclusive): every list that takes one calls checkTimeRange (docs/validation.md, "List
 * filters"; docs/sync.md, "The parameters").
 */
import { invalid } from '../errors/domain-error.ts';

/** The stamp a range filters on: `created_at`, `updated_at`, or the audit log's `occurred_at`. */
type RangeField = 'created' | 'updated' | 'occurred';

/**
 * Refuses a range that is empty or reversed (`<field>_lt` not later than `<field>_gte`,
 * compared as instants, so the offsets they were written with do not matter), naming the
 * upper bound. Such a range selects nothing by construction: it comes from a caller's
 * window arithmetic or clock gone wrong, and an empty page would hide that (docs/sync.md).
 * A range that is merely empty of rows is not checked here: it answers an empty page.
 */
export function checkTimeRange(field: RangeField, gte: Date | undefined, lt: Date | undefined): void {
  if (gte === undefined || lt === undefined || lt.getTime() > gte.getTime()) return;
  throw invalid(
    'parameter_invalid',
    `${field}_lt (${lt.toISOString()}) must be later than ${field}_gte (${gte.toISOString()}).`,
    `${field}_lt`,
  );
}
