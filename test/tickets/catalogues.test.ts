/**
 * The catalogues (docs/tickets.md, "Languages"): a missing or broken translation fails
 * here, not in a buyer's inbox. Every language has exactly the keys of English, plural
 * entries in every form its plural rules need, no empty entry and the same `{{values}}`;
 * and rendering every mail in every language asks for no key a catalogue lacks.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { LANGUAGES, missingTranslations, type Language } from '../../src/i18n/index.ts';
import { renderETickets, renderInvitation, renderPasswordReset, renderReceipt } from '../../src/mail/templates.ts';

/** i18next's plural suffixes: the categories of Intl.PluralRules. */
const PLURAL = /^(.+)_(zero|one|two|few|many|other)$/;

interface Catalogue {
  /** Keys without plural forms → text. */
  plain: Map<string, string>;
  /** Plural keys by their base (`mail.link_once_hours`) → category → text. */
  plural: Map<string, Map<string, string>>;
}

function load(language: Language): Catalogue {
  const json: unknown = JSON.parse(
    readFileSync(new URL(`../../src/i18n/locales/${language}.json`, import.meta.url), 'utf8'),
  );
  const catalogue: Catalogue = { plain: new Map(), plural: new Map() };
  const walk = (node: unknown, path: string) => {
    if (typeof node === 'string') {
      const plural = PLURAL.exec(path);
      if (!plural) return void catalogue.plain.set(path, node);
      const forms = catalogue.plural.get(plural[1]!) ?? new Map<string, string>();
      catalogue.plural.set(plural[1]!, forms.set(plural[2]!, node));
      return;
    }
    assert.ok(
      node !== null && typeof node === 'object' && !Array.isArray(node),
      `${language}: ${path} is text or a section`,
    );
    for (const [key, child] of Object.entries(node)) walk(child, path ? `${path}.${key}` : key);
  };
  walk(json, '');
  return catalogue;
}

/** The `{{name}}` values an entry interpolates. */
function valuesOf(text: string): Set<string> {
  return new Set([...text.matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1]!));
}

const english = load('en');

describe('catalogues', () => {
  test('English has entries, some of them plural', () => {
    assert.ok(english.plain.size > 50, `${english.plain.size} entries`);
    assert.deepEqual([...english.plural.get('mail.link_once_hours')!.keys()].sort(), ['one', 'other']);
  });

  for (const language of LANGUAGES) {
    test(`${language}: the keys of English, every plural form, no empty entry, the same values`, () => {
      const catalogue = load(language);
      assert.deepEqual([...catalogue.plain.keys()].sort(), [...english.plain.keys()].sort(), 'keys');
      assert.deepEqual([...catalogue.plural.keys()].sort(), [...english.plural.keys()].sort(), 'plural keys');

      // i18next picks a form by Intl.PluralRules of the language; `zero` may be added anywhere.
      const needed = new Intl.PluralRules(language).resolvedOptions().pluralCategories as string[];
      for (const [base, forms] of catalogue.plural) {
        for (const category of needed) assert.ok(forms.has(category), `${language}: ${base}_${category} is missing`);
        for (const category of forms.keys()) {
          assert.ok(needed.includes(category) || category === 'zero', `${language}: ${base}_${category} is never used`);
        }
      }

      for (const [key, text] of catalogue.plain) {
        assert.notEqual(text.trim(), '', `${language}: ${key} is empty`);
        assert.deepEqual(valuesOf(text), valuesOf(english.plain.get(key)!), `${language}: ${key} interpolates`);
      }
      for (const [base, forms] of catalogue.plural) {
        const englishValues = new Set([...english.plural.get(base)!.values()].flatMap((text) => [...valuesOf(text)]));
        for (const [category, text] of forms) {
          assert.notEqual(text.trim(), '', `${language}: ${base}_${category} is empty`);
          const values = valuesOf(text);
          // A form may spell its number out ("eine Stunde", "ساعتين"); every other value stays.
          for (const name of englishValues) {
            if (name !== 'count') assert.ok(values.has(name), `${language}: ${base}_${category} lacks {{${name}}}`);
          }
          for (const name of values)
            assert.ok(englishValues.has(name), `${language}: ${base}_${category} has {{${name}}}`);
        }
        if (englishValues.has('count')) {
          assert.ok(valuesOf(forms.get('other')!).has('count'), `${language}: ${base}_other shows {{count}}`);
        }
      }
    });
  }

  test('every mail in every language, with every status and role, asks for no missing key', async () => {
    const buyer = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' };
    const startsAt = new Date('2026-07-03T17:30:00Z');
    const rendered: string[] = [];
    for (const language of LANGUAGES) {
      for (const status of ['unpaid', 'placed', 'fulfilled', 'cancelled']) {
        const mail = await renderReceipt({
          language,
          organizerName: 'Riverside Hall',
          orderNo: 'M-1',
          buyer,
          currency: 'EUR',
          totalMinor: 1250,
          status,
          lines: [
            {
              eventTitle: 'Concert',
              performanceStartsAt: startsAt,
              eventTimeZone: 'Europe/Berlin',
              ticketTypeName: 'Standard',
              quantity: 2,
              unitPriceMinor: 500,
              totalMinor: 1000,
            },
          ],
          feesMinor: 150,
          taxesMinor: 100,
          createdAt: startsAt,
        });
        rendered.push(mail.subject, mail.text, mail.html);
      }
      const etickets = await renderETickets({
        language,
        organizerName: 'Riverside Hall',
        orderNo: 'M-1',
        buyer,
        googleWalletUrl: 'https://pay.google.com/gp/v/save/x',
        tickets: [
          {
            ticketNo: 'M-1-0001',
            serialNo: 'SERIAL',
            eventTitle: 'Concert',
            ticketTypeName: 'Standard',
            performanceStartsAt: startsAt,
            eventTimeZone: 'Europe/Berlin',
            venueName: 'Main Stage',
            holderName: 'Ada Lovelace',
          },
        ],
      });
      rendered.push(etickets.subject, etickets.text, etickets.html);
      for (const role of ['owner', 'manager', 'box_office', 'door', 'viewer'] as const) {
        for (const inviterName of ['', 'Grace Hopper']) {
          const mail = await renderInvitation({
            language,
            to: 'x@example.test',
            link: 'http://127.0.0.1/i',
            organizerName: 'Riverside Hall',
            inviterName,
            role,
          });
          rendered.push(mail.subject, mail.text, mail.html);
        }
      }
      for (const name of ['', 'Ada']) {
        const mail = await renderPasswordReset({ language, to: 'x@example.test', link: 'http://127.0.0.1/r', name });
        rendered.push(mail.subject, mail.text, mail.html);
      }
    }
    assert.deepEqual(missingTranslations(), []);
    assert.deepEqual(
      rendered.filter((part) => /\{\{|mail\.[a-z_]+\.[a-z_]+/.test(part)),
      [],
      'no value left unfilled, no key path shown',
    );
  });
});
