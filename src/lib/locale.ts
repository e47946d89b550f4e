/** Validation of IANA time zones and ISO 4217 currency codes, by the runtime's ICU data. */

export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export function isValidCurrency(code: string): boolean {
  return KNOWN_CURRENCIES.has(code);
}
