/**
 * The timestamps Marquee stores (docs/validation.md): RFC 3339 date-times from
 * 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, with a time zone, at most
 * millisecond precision kept. Both engines store every instant in that range exactly
 * and JavaScript's Date reads each back, so a write and the next read agree. Leap seconds
 * (second 60) are refused: Date cannot represent them.
 */
const EARLIEST_TIMESTAMP = new Date('1970-01-01T00:00:00.000Z');
const LATEST_TIMESTAMP = new Date('9999-12-31T23:59:59.999Z');

export const TIMESTAMP_RANGE_TEXT = 'from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export function isInTimestampRange(instant: Date): boolean {
  const ms = instant.getTime();
  return ms >= EARLIEST_TIMESTAMP.getTime() && ms <= LATEST_TIMESTAMP.getTime();
}

/** True for an RFC 3339 date-time Marquee accepts: a real calendar date and time, in range. */
export function isAcceptedTimestamp(text: string): boolean {
  const match = RFC3339.exec(text);
  if (!match) return false;
  const [, year, month, day, hour, minute, second, , zone] = match;
  if (Number(month) < 1 || Number(month) > 12) return false;
  if (Number(day) < 1 || Number(day) > daysInMonth(Number(year), Number(month))) return false;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return false;
  if (zone !== undefined && zone.length === 6 && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4)) > 59))
    return false;
  const instant = new Date(text);
  return !Number.isNaN(instant.getTime()) && isInTimestampRange(instant);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
