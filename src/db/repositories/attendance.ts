/**
 * SQL of a performance's attendance (docs/check-ins.md, "Attendance"): ONE statement, so the
 * counts, the gates, the minutes and the double entries come from one snapshot. The checked-in
 * tickets are read by tickets_checked_in_idx, the double entries by check_in_scans_double_idx
 * (migrations/0019_door_devices.sql).
 */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';

/** Minutes shown before the current one. */
const ATTENDANCE_MINUTES = 15;
/** Double entries shown, newest first. */
const ATTENDANCE_DOUBLE_ENTRIES = 50;

/** json_agg hands timestamps back as text. */
type JsonTime = string;

interface AttendanceRows {
  sold: number;
  admitted: number;
  gates: { device_id: string | null; name: string | null; admitted: number; last_admitted_at: JsonTime }[];
  per_minute: { minute: JsonTime; admitted: number }[];
  double_entries: {
    ticket_id: string;
    ticket_no: string | null;
    first_device_id: string | null;
    first_device_name: string | null;
    first_checked_in_at: JsonTime | null;
    second_device_id: string | null;
    second_device_name: string | null;
    scanned_at: JsonTime;
    received_at: JsonTime;
  }[];
}

/** The performance's attendance at `now`; undefined when it is not one of the organizer's. */
export async function selectAttendance(
  db: Executor,
  organizerId: string,
  performanceId: string,
  now: Date,
): Promise<AttendanceRows | undefined> {
  const result = await sql<AttendanceRows>`
    WITH span AS (
      SELECT date_trunc('minute', ${now}::timestamptz) - make_interval(mins => ${ATTENDANCE_MINUTES}) AS first_minute,
             date_trunc('minute', ${now}::timestamptz) AS last_minute
    )
    SELECT
      (SELECT count(*) FROM tickets t
        WHERE t.performance_id = p.id AND t.status IN ('purchased', 'checked_in'))::int AS sold,
      (SELECT count(*) FROM tickets t WHERE t.performance_id = p.id AND t.status = 'checked_in')::int AS admitted,
      (SELECT coalesce(json_agg(g ORDER BY g.admitted DESC, g.name NULLS LAST, g.device_id), '[]'::json) FROM (
         SELECT t.checked_in_device_id AS device_id, d.name, count(*)::int AS admitted,
                max(t.checked_in_at) AS last_admitted_at
         FROM tickets t LEFT JOIN door_devices d ON d.id = t.checked_in_device_id
         WHERE t.performance_id = p.id AND t.status = 'checked_in'
         GROUP BY t.checked_in_device_id, d.name
       ) g) AS gates,
      (SELECT json_agg(json_build_object('minute', m.minute, 'admitted', coalesce(c.admitted, 0)) ORDER BY m.minute)
       FROM span, generate_series(span.first_minute, span.last_minute, interval '1 minute') AS m(minute)
       LEFT JOIN (
         SELECT date_trunc('minute', t.checked_in_at) AS minute, count(*)::int AS admitted
         FROM tickets t, span
         WHERE t.performance_id = p.id AND t.status = 'checked_in'
           AND t.checked_in_at >= span.first_minute
           AND t.checked_in_at < span.last_minute + interval '1 minute'
         GROUP BY 1
       ) c ON c.minute = m.minute) AS per_minute,
      (SELECT coalesce(json_agg(x ORDER BY x.received_at DESC, x.id DESC), '[]'::json) FROM (
         SELECT s.id, s.ticket_id, t.ticket_no,
                s.admitted_device_id AS first_device_id, first_device.name AS first_device_name,
                s.admitted_at AS first_checked_in_at,
                s.device_id AS second_device_id, second_device.name AS second_device_name,
                s.scanned_at, s.received_at
         FROM check_in_scans s
         LEFT JOIN tickets t ON t.id = s.ticket_id AND t.organizer_id = s.organizer_id
         LEFT JOIN door_devices first_device ON first_device.id = s.admitted_device_id
         LEFT JOIN door_devices second_device ON second_device.id = s.device_id
         WHERE s.performance_id = p.id AND s.outcome = 'already_checked_in'
         ORDER BY s.received_at DESC, s.id DESC
         LIMIT ${ATTENDANCE_DOUBLE_ENTRIES}
       ) x) AS double_entries
    FROM performances p
    WHERE p.id = ${performanceId} AND p.organizer_id = ${organizerId}
  `.execute(db);
  return result.rows[0];
}
