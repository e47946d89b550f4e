/** A performance's attendance (docs/check-ins.md, "Attendance"). */
import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const Attendance = Type.Object(
  {
    performance_id: Uuid,
    sold: Count('tickets purchased or checked in'),
    admitted: Count('tickets checked in'),
    gates: Type.Array(
      Type.Object({
        device_id: Nullable(Uuid),
        name: Type.String({ description: 'the door device’s name; "Console and API" for every other check-in' }),
        admitted: Count('tickets this gate admitted'),
        last_admitted_at: Timestamp,
      }),
      { description: 'where the admitted tickets went in, most admissions first' },
    ),
    per_minute: Type.Array(Type.Object({ minute: Timestamp, admitted: Count('tickets checked in that minute') }), {
      description: 'the last 15 whole minutes and the current one, zeros included, oldest first',
    }),
    double_entries: Type.Array(
      Type.Object({
        ticket_id: Uuid,
        ticket_no: Nullable(Type.String()),
        first: Type.Object({
          device_id: Nullable(Uuid),
          device_name: Nullable(Type.String()),
          checked_in_at: Nullable(Timestamp),
        }),
        second: Type.Object({
          device_id: Nullable(Uuid),
          device_name: Nullable(Type.String()),
          scanned_at: Timestamp,
          received_at: Timestamp,
        }),
      }),
      { description: 'uploaded scans of an already admitted ticket, newest first, at most 50' },
    ),
  },
  { description: 'A performance’s attendance: admitted of sold, per gate, per minute, double entries' },
);
