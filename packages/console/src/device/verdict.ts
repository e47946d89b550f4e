/**
 * What the device shows for a scan (docs/door.md, "Door devices"): the words, colour
 * and sound of its verdict, from what is stored with the scan: the local copy's verdict
 * for an offline scan (admissionOf, the server's own rule), the server's outcome once it
 * came. Pure, so it is tested on its own; the sentences are the door's (verdict-words.ts).
 */
import type { Tone } from '../door/beep.ts';
import { formatTimeAt, REFUSAL_HEADLINES, sentences } from '../door/verdict-words.ts';
import type { CheckInScan, DoorDeviceSelf } from './contract.ts';
import type { DeviceScan } from './device-db.ts';

interface VerdictView {
  /** The class and `data-outcome` of the verdict: its colour. */
  kind: 'admitted' | 'refused' | 'queued' | 'double' | 'error';
  /** A refusal's reason (`data-reason`). */
  reason?: string;
  tone: Tone;
  headline: string;
  detail: string;
}

const labels = new Map<string, string>();

/** Names the performance of a ticket ("Jazz Night, May 1, 2027, 7:00 PM"), or undefined. */
export function performanceLabel(device: DoorDeviceSelf, performanceId: string | null): string | undefined {
  const performance = device.performances.find((p) => p.id === performanceId);
  if (!performance) return undefined;
  const key = `${performance.id}|${performance.event_name}|${performance.starts_at}|${performance.timezone}`;
  let label = labels.get(key);
  if (label === undefined) {
    const when = new Intl.DateTimeFormat('en-US', {
      timeZone: performance.timezone,
      dateStyle: 'medium',
      timeStyle: 'short',
    }).format(new Date(performance.starts_at));
    label = `${performance.event_name}, ${when}`;
    labels.set(key, label);
  }
  return label;
}

/** The zone a ticket's times are shown in: its performance's, else the organizer's. */
export function zoneOf(device: DoorDeviceSelf, performanceId: string | null | undefined): string {
  return device.performances.find((p) => p.id === performanceId)?.timezone ?? device.organizer.timezone;
}

const gateOf = (ref: CheckInScan['checked_in_by']) => ref?.device_name ?? 'the console or the API';

/** The order number of a ticket number (`<order_no>-<nnn>`). */
const orderNoOf = (ticketNo: string) => ticketNo.replace(/-\d+$/, '');

function refusal(
  reason: 'refunded' | 'cancelled' | 'unpaid' | 'wrong_performance' | 'unknown',
  scan: DeviceScan,
  device: DoorDeviceSelf,
): VerdictView {
  const ticketNo = scan.ticket?.ticket_no ?? scan.code;
  const base = { kind: 'refused', reason, tone: 'refused' } as const;
  switch (reason) {
    case 'refunded':
      return { ...base, headline: REFUSAL_HEADLINES.refunded, detail: sentences.refunded(ticketNo) };
    case 'cancelled':
      return { ...base, headline: REFUSAL_HEADLINES.cancelled, detail: sentences.cancelled(ticketNo) };
    case 'unpaid':
      return {
        ...base,
        headline: REFUSAL_HEADLINES.unpaid,
        detail: `The order ${orderNoOf(ticketNo)} is not paid yet.`,
      };
    case 'wrong_performance':
      return {
        ...base,
        headline: 'Another performance',
        detail: sentences.otherPerformance(
          ticketNo,
          performanceLabel(device, scan.ticket?.performance_id ?? null) ?? 'a performance this device does not admit',
        ),
      };
    case 'unknown':
      return { ...base, headline: REFUSAL_HEADLINES.unknown, detail: sentences.unknown(scan.code) };
  }
}

function admittedLine(scan: DeviceScan): string {
  const t = scan.ticket;
  return t ? [t.ticket_type_name, t.holder_name, t.ticket_no].filter((part) => part !== '').join(' · ') : scan.code;
}

/** The verdict of a scan as it stands now. */
export function describeScan(scan: DeviceScan, device: DoorDeviceSelf, locale?: string): VerdictView {
  const zone = zoneOf(device, scan.ticket?.performance_id);
  const at = (iso: string | null) => (iso === null ? 'an unknown time' : formatTimeAt(iso, zone, locale));
  const ticketNo = scan.ticket?.ticket_no ?? scan.code;
  const admittedHere = scan.mode === 'offline' && scan.local?.admit === true;

  if (scan.rejected !== undefined)
    return { kind: 'error', tone: 'refused', headline: 'Not checked', detail: scan.rejected };
  if (scan.mode === 'unknown') return refusal('unknown', scan, device);

  const outcome = scan.outcome;
  if (outcome) {
    switch (outcome.outcome) {
      case 'admitted':
        return {
          kind: 'admitted',
          tone: 'admitted',
          headline: admittedHere ? 'Admitted · offline' : 'Admitted',
          detail: admittedLine(scan),
        };
      case 'already_checked_in':
        if (admittedHere || scan.mode === 'unverified')
          return {
            kind: 'double',
            reason: 'double_entry',
            tone: 'refused',
            headline: 'Double entry',
            detail: `Ticket ${ticketNo} was ${admittedHere ? 'admitted here' : 'scanned here'} at ${at(scan.scanned_at)}, and ${gateOf(outcome.checked_in_by)} admitted it at ${at(outcome.checked_in_at)}.`,
          };
        return {
          kind: 'refused',
          reason: 'already_checked_in',
          tone: 'refused',
          headline: REFUSAL_HEADLINES.already_checked_in,
          detail: sentences.checkedInAt(ticketNo, at(outcome.checked_in_at), gateOf(outcome.checked_in_by)),
        };
      case 'not_admittable': {
        const view = refusal(outcome.reason ?? 'unknown', scan, device);
        return admittedHere
          ? { ...view, detail: `${view.detail} It was admitted here offline at ${at(scan.scanned_at)}.` }
          : view;
      }
    }
  }

  if (scan.mode === 'unverified' || scan.mode === 'server')
    return {
      kind: 'queued',
      tone: 'queued',
      headline: 'Queued, not verified',
      detail: `${scan.code} will be checked when the network is back. Do not count it as admitted yet.`,
    };

  // Offline, decided from the copy.
  const local = scan.local;
  if (!local || local.admit)
    return { kind: 'admitted', tone: 'admitted', headline: 'Admitted · offline', detail: admittedLine(scan) };
  if (local.reason === 'already_checked_in') {
    const when = at(scan.local_checked_in?.at ?? null);
    return scan.local_checked_in?.here
      ? {
          kind: 'refused',
          reason: 'already_checked_in',
          tone: 'refused',
          headline: 'Already admitted on this device',
          detail: `Ticket ${ticketNo} was admitted on this device at ${when}.`,
        }
      : {
          kind: 'refused',
          reason: 'already_checked_in',
          tone: 'refused',
          headline: REFUSAL_HEADLINES.already_checked_in,
          detail: sentences.checkedInAt(ticketNo, when),
        };
  }
  return refusal(local.reason, scan, device);
}
