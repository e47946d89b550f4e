/**
 * The languages of what a buyer receives (docs/tickets.md, "Languages"): the e-mails, the
 * PDF tickets and the wallet passes speak the event's language, else the organizer's
 * default, else English.
 *
 * Words come from one catalogue per language (src/i18n/locales/<language>.json, i18next's
 * JSON format: nested keys, `{{name}}` interpolation, plural forms as `key_one` /
 * `key_other` chosen by Intl.PluralRules). Numbers, money and dates come from Intl in the
 * language's locale. A key missing from a catalogue falls back to English, so a buyer
 * never reads a key path; the catalogue test fails on it instead (test/tickets/catalogues).
 *
 * Pure and synchronous: the render threads (src/mail/render-task.ts) load it as well.
 */
import i18next, { type i18n } from 'i18next';
import ar from './locales/ar.json' with { type: 'json' };
import de from './locales/de.json' with { type: 'json' };
import en from './locales/en.json' with { type: 'json' };
import es from './locales/es.json' with { type: 'json' };
import fr from './locales/fr.json' with { type: 'json' };

/** Every language a catalogue ships for; adding one is a file here and a line below (docs/tickets.md). */
const CATALOGUES = { en, de, fr, es, ar } as const;

export type Language = keyof typeof CATALOGUES;
export const LANGUAGES = Object.keys(CATALOGUES) as Language[];
export const DEFAULT_LANGUAGE: Language = 'en';

/** The locale Intl formats a language's numbers and dates in. */
const INTL_LOCALES: Record<Language, string> = {
  en: 'en-US',
  de: 'de-DE',
  fr: 'fr-FR',
  es: 'es-ES',
  ar: 'ar',
};

/** The languages written right to left. */
const RIGHT_TO_LEFT = new Set<Language>(['ar']);

export function isLanguage(tag: string): tag is Language {
  return Object.hasOwn(CATALOGUES, tag);
}

/** What a buyer's documents speak: the event's language, else the organizer's, else English. */
export function languageOf(
  eventLanguage: string | null | undefined,
  organizerLanguage: string | null | undefined,
): Language {
  for (const tag of [eventLanguage, organizerLanguage]) if (tag && isLanguage(tag)) return tag;
  return DEFAULT_LANGUAGE;
}

export interface Translator {
  language: Language;
  /** The BCP 47 locale of Intl's formats. */
  locale: string;
  dir: 'ltr' | 'rtl';
  /** A catalogue entry, `{{name}}` filled from `values`; `count` picks the plural form. */
  t(key: string, values?: Record<string, string | number>): string;
  /** `1250, 'EUR'` → `€12.50` (en), `12,50 €` (de): the minor digits from ICU's data for the currency. */
  money(minor: number, currency: string): string;
  /** Date and time in `timeZone`, its offset and, unless UTC, its IANA name. */
  dateTime(at: Date, timeZone?: string): string;
}

const keysMissing = new Set<string>();

/** Every `language:key` asked for and missing from its catalogue since the process started (tests). */
export function missingTranslations(): string[] {
  return [...keysMissing].sort();
}

const instances = new Map<Language, i18n>();

function instanceFor(language: Language): i18n {
  let instance = instances.get(language);
  if (!instance) {
    instance = i18next.createInstance();
    void instance.init({
      lng: language,
      fallbackLng: DEFAULT_LANGUAGE,
      resources: Object.fromEntries(LANGUAGES.map((lang) => [lang, { translation: CATALOGUES[lang] }])),
      initAsync: false,
      // The callers escape for their medium (HTML, PDF text, pass fields), not i18next.
      interpolation: { escapeValue: false },
      saveMissing: true,
      missingKeyHandler: (languages, _namespace, key) => {
        for (const lang of languages) keysMissing.add(`${lang}:${key}`);
      },
      returnNull: false,
      showSupportNotice: false,
    } as Parameters<i18n['init']>[0]);
    instances.set(language, instance);
  }
  return instance;
}

export function translator(language: Language): Translator {
  const instance = instanceFor(language);
  const locale = INTL_LOCALES[language];
  return {
    language,
    locale,
    dir: RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr',
    t(key, values) {
      // `count` lets exists() find a plural key by its language's forms (`key_one`, `key_few`…).
      if (!instance.exists(key, { ...values, lng: language, fallbackLng: false } as never)) {
        keysMissing.add(`${language}:${key}`);
      }
      return instance.t(key, values ?? {});
    },
    money: (minor, currency) => formatMoney(locale, minor, currency),
    dateTime: (at, timeZone) => formatDateTime(locale, at, timeZone),
  };
}

/**
 * The number of minor digits comes from ICU's data for the currency (0 for JPY, 3 for
 * KWD), not from a hard-coded 2. Dividing an integer by a power of ten and printing it
 * with exactly that many fraction digits round-trips for every safe integer, so floating
 * point does not leak into totals.
 */
/** How many minor digits ICU gives `currency`: 2 for EUR, 0 for JPY, 3 for BHD. */
export function currencyMinorDigits(currency: string): number {
  const format = cached(
    moneyFormats,
    `en ${currency}`,
    () => new Intl.NumberFormat('en', { style: 'currency', currency }),
  );
  return format.resolvedOptions().maximumFractionDigits ?? 2;
}

function formatMoney(locale: string, minor: number, currency: string): string {
  const format = cached(
    moneyFormats,
    `${locale} ${currency}`,
    () => new Intl.NumberFormat(locale, { style: 'currency', currency }),
  );
  const minorDigits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** minorDigits);
}

/**
 * `Friday, July 3, 2026 at 7:30 PM GMT+2 (Europe/Berlin)` in English: the time in the
 * given zone, with its offset and, unless it is UTC, its IANA name, so a buyer abroad
 * reads the local time of the show and knows which zone it is in.
 */
function formatDateTime(locale: string, at: Date, timeZone = 'UTC'): string {
  const format = cached(
    dateTimeFormats,
    `${locale} ${timeZone}`,
    () =>
      new Intl.DateTimeFormat(locale, {
        weekday: 'long',
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZone,
        timeZoneName: 'short',
      }),
  );
  const local = format.format(at);
  return timeZone === 'UTC' || timeZone === 'Etc/UTC' ? local : `${local} (${timeZone})`;
}

/**
 * Building an Intl formatter costs far more than using one, and an e-ticket mail formats
 * a date twice per ticket, so formatters are kept per locale and currency or zone. The
 * sets are small (languages × ISO currencies or IANA zones); the bound guards odd input.
 */
const moneyFormats = new Map<string, Intl.NumberFormat>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
const MAX_CACHED_FORMATS = 1000;

function cached<T>(cache: Map<string, T>, key: string, create: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = create(); // throws on an unknown currency or zone, before anything is cached
    if (cache.size >= MAX_CACHED_FORMATS) cache.clear();
    cache.set(key, value);
  }
  return value;
}
