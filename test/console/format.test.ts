/**
 * How the console writes money and time (docs/console.md, "Money and dates"): amounts in
 * the currency's own minor units, typed prices read back into minor units, and instants in
 * the event's time zone, the zone named, either side of a daylight-saving change. The
 * module runs in the browser; these are its pure functions, run here.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dateTime, minorDigits, money, parseMoney, zonedInputToIso } from '../../packages/console/src/lib/format.ts';

describe('console formats', () => {
  test('money in the minor units of its currency', () => {
    assert.deepEqual(
      ['EUR', 'JPY', 'KWD', 'USD'].map((c) => minorDigits(c)),
      [2, 0, 3, 2],
    );
    assert.equal(money(8687, 'EUR', 'en-US'), '€86.87');
    assert.equal(money(1500, 'JPY', 'en-US'), '¥1,500');
    assert.equal(money(1234, 'KWD', 'en-US'), 'KWD\u00a01.234');
    assert.equal(money(8687, 'EUR', 'de-DE'), '86,87\u00a0€');
  });

  test('a typed price becomes minor units, or nothing when it is not a price of the currency', () => {
    assert.equal(parseMoney('35', 'EUR'), 3500);
    assert.equal(parseMoney(' 18.5 ', 'EUR'), 1850);
    assert.equal(parseMoney('0.05', 'EUR'), 5);
    assert.equal(parseMoney('1500', 'JPY'), 1500);
    assert.equal(parseMoney('1.234', 'KWD'), 1234);
    for (const [text, currency] of [
      ['15.5', 'JPY'],
      ['12.345', 'EUR'],
      ['-3', 'EUR'],
      ['', 'EUR'],
      ['1,50', 'EUR'],
    ] as const)
      assert.equal(parseMoney(text, currency), undefined, `${text} ${currency}`);
  });

  test('times read and written in the event zone, named, across daylight saving', () => {
    assert.equal(zonedInputToIso('2027-03-12T19:30', 'Europe/Berlin'), '2027-03-12T18:30:00.000Z');
    assert.equal(zonedInputToIso('2027-07-01T19:30', 'Europe/Berlin'), '2027-07-01T17:30:00.000Z');
    assert.equal(zonedInputToIso('2027-07-01T19:30', 'Asia/Tokyo'), '2027-07-01T10:30:00.000Z');
    assert.equal(zonedInputToIso('2027-07-01', 'Europe/Berlin'), undefined);
    assert.equal(dateTime('2027-03-12T18:30:00.000Z', 'Europe/Berlin', 'en-US'), 'Mar 12, 2027, 07:30 PM GMT+1');
    assert.equal(dateTime('2027-07-01T17:30:00.000Z', 'Europe/Berlin', 'en-US'), 'Jul 1, 2027, 07:30 PM GMT+2');
    assert.equal(dateTime('2027-07-01T10:30:00.000Z', 'America/New_York', 'en-US'), 'Jul 1, 2027, 06:30 AM EDT');
  });
});
