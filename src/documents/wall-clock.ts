/**
 * What an instant reads on the clocks of a time zone, and the zone's offset from UTC then:
 * the calendar file writes the first (a DATE-TIME with its TZID), the Google Wallet class
 * both (an ISO 8601 time with its offset). One formatter per zone, kept.
 */
interface WallClock {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  /** `+01:00`, `-05:00`, `+00:00`. */
  offset: string;
}

const formats = new Map<string, Intl.DateTimeFormat>();

export function wallClockIn(at: Date, timeZone: string): WallClock {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    if (formats.size >= 1000) formats.clear();
    formats.set(timeZone, format);
  }
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const { type, value } of format.formatToParts(at)) part[type] = value;
  return {
    year: part.year ?? '',
    month: part.month ?? '',
    day: part.day ?? '',
    hour: part.hour ?? '',
    minute: part.minute ?? '',
    second: part.second ?? '',
    // "GMT+01:00", or "GMT" for a zero offset.
    offset: (part.timeZoneName ?? 'GMT').replace('GMT', '') || '+00:00',
  };
}
