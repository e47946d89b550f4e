/**
 * A performance's attendance (docs/check-ins.md, "Attendance"): admitted of sold, per gate
 * (each door device, and "Console and API" for every other check-in), per minute over the
 * last quarter hour, and the newest double entries. The figures come from one statement
 * (src/db/repositories/attendance.ts); this module names them.
 */
import { selectAttendance } from '../../db/repositories/attendance.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors/domain-error.ts';

/** The gate of every check-in not made by a door device: the console's door screen, an integration. */
const CONSOLE_AND_API_GATE = 'Console and API';

const at = (text: string | null) => (text === null ? null : new Date(text));

export async function getAttendance(db: Executor, organizerId: string, performanceId: string, now: Date) {
  const rows = await selectAttendance(db, organizerId, performanceId, now);
  if (rows === undefined) throw notFound('Performance');
  return {
    performance_id: performanceId,
    sold: rows.sold,
    admitted: rows.admitted,
    gates: rows.gates.map((gate) => ({
      device_id: gate.device_id,
      name: gate.device_id === null ? CONSOLE_AND_API_GATE : (gate.name ?? CONSOLE_AND_API_GATE),
      admitted: gate.admitted,
      last_admitted_at: new Date(gate.last_admitted_at),
    })),
    per_minute: rows.per_minute.map((minute) => ({ minute: new Date(minute.minute), admitted: minute.admitted })),
    double_entries: rows.double_entries.map((entry) => ({
      ticket_id: entry.ticket_id,
      ticket_no: entry.ticket_no,
      first: {
        device_id: entry.first_device_id,
        device_name: entry.first_device_name,
        checked_in_at: at(entry.first_checked_in_at),
      },
      second: {
        device_id: entry.second_device_id,
        device_name: entry.second_device_name,
        scanned_at: new Date(entry.scanned_at),
        received_at: new Date(entry.received_at),
      },
    })),
  };
}
