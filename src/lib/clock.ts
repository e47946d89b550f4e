/**
 * The one source of "now" for every time-dependent rule (idempotency expiry,
 * webhook retries, auto-disable windows, hold expiry, retention). Production uses
 * the system clock; tests inject a ManualClock and move time forward in seconds.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | string = '2026-06-01T12:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
  set(to: Date | string): void {
    this.#ms = new Date(to).getTime();
  }
}
