/**
 * The CSV exports (docs/exports.md): the exact text of both exports of a small event
 * (header, rows, RFC 4180 quoting of commas, quotes and line breaks, non-ASCII text,
 * formula escaping of every prefix, registration answers as columns), the BOM option,
 * the performance filter, the headers of the download, and the refusals. The batch size
 * is 2 rows here, so every export below is read in several batches.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { problemOf, useBefore, useTestApp } from '../helpers/app.ts';
import { createEvent, performanceIdsOf } from '../helpers/catalog.ts';

const START = '2026-06-01T12:00:00.000Z';
const P1 = '2026-07-01T19:30:00.000Z';
const P2 = '2026-07-02T19:30:00.000Z';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

interface Ticket {
  id: string;
  ticket_no: string;
  serial_no: string;
  ticket_type_id: string;
  performance_id: string;
}
interface Order {
  id: string;
  order_no: string;
  transactions: { transaction_no: string; performance_id: string; items: Ticket[] }[];
}

describe('CSV exports of an event', () => {
  const t = useTestApp({ clock: new ManualClock(START), appOptions: { exportBatchSize: 2 } });

  const fx = useBefore(async () => {
    const org = await t.createOrganizer();
    const event = await createEvent(t, org.key, {
      title: 'Café "Noir", Jazz',
      performances: [
        { starts_at: P1, capacity: 100, title: 'Opening night' },
        { starts_at: P2, capacity: 100 },
      ],
      ticket_types: [
        { name: 'General', price_minor: 2500, quantity: null },
        { name: 'VIP, front row', price_minor: 9000, quantity: null },
      ],
    });
    const [p1, p2] = performanceIdsOf(event) as [string, string];
    const [general, vip] = event.ticket_types.map((tt) => tt.id) as [string, string];
    const ask = async (body: Record<string, unknown>) => {
      const res = await t.admin('POST', `/admin/v1/events/${event.id}/questions`, body);
      assert.equal(res.statusCode, 201, res.body);
    };
    await ask({ key: 'company', label: 'Company', type: 'text' });
    await ask({
      key: 'diet',
      label: 'Dietary needs',
      type: 'multi_select',
      per_attendee: true,
      options: [
        { key: 'vegan', label: 'Vegan' },
        { key: 'nuts', label: 'No nuts' },
      ],
    });
    await ask({ key: 'note', label: 'Note', type: 'text', per_attendee: true });

    const sell = async (body: Record<string, unknown>): Promise<Order> => {
      const res = await t.api(org.key, 'POST', '/v1/orders', body);
      assert.equal(res.statusCode, 201, res.body);
      t.clock.advance(1000);
      return res.json<Order>();
    };
    const first = await sell({
      items: [{ performance_id: p1, ticket_type_id: general, quantity: 2 }],
      buyer: {
        first_name: '=HYPERLINK("http://x")',
        last_name: "O'Brien, Jr.",
        email: 'a@example.test',
        phone: '+44 20 7946 0000',
      },
      tender: 'cash',
      registration_answers: [
        { field_key: 'company', value: '@Acme' },
        { field_key: 'diet', ticket_no: '1', value: ['vegan', 'nuts'] },
        { field_key: 'note', ticket_no: '2', value: 'line one\nline "two"' },
      ],
    });
    const second = await sell({
      items: [{ performance_id: p2, ticket_type_id: vip, quantity: 1 }],
      buyer: { first_name: 'Zoë', last_name: 'Ünal-Σ', email: 'zoe@example.test' },
      tender: 'pay_later',
      registration_answers: [
        { field_key: 'company', value: '-2+3' },
        { field_key: 'note', ticket_no: '1', value: '\tTabbed' },
      ],
    });
    const third = await sell({
      items: [
        { performance_id: p1, ticket_type_id: general, quantity: 1 },
        { performance_id: p2, ticket_type_id: vip, quantity: 1 },
      ],
      buyer: { first_name: '+Plus', last_name: '-Minus', email: '-m@example.test' },
      tender: 'cash',
      registration_answers: [
        { field_key: 'company', value: 'Two\nlines' },
        { field_key: 'note', ticket_no: '1', value: '\rCarriage' },
        { field_key: 'note', ticket_no: '2', value: '日本語, ok' },
      ],
    });
    // One check-in, one transfer: their columns.
    const checkIn = await t.api(org.key, 'POST', `/v1/tickets/${first.transactions[0]!.items[0]!.id}/check_in`);
    assert.equal(checkIn.statusCode, 200, checkIn.body);
    // Another event of the organizer, with a sale: never in this event's exports.
    const other = await createEvent(t, org.key);
    const otherSale = await t.api(org.key, 'POST', '/v1/orders', {
      items: [{ performance_id: performanceIdsOf(other)[0], ticket_type_id: other.ticket_types[0]!.id, quantity: 1 }],
      buyer: { first_name: 'Other', email: 'other@example.test' },
      tender: 'cash',
    });
    assert.equal(otherSale.statusCode, 201, otherSale.body);
    return { org, event, other, p1, p2, general, vip, orders: [first, second, third] as const };
  }, 'fixture');

  const get = (url: string, key = fx.org.readKey) => t.api(key, 'GET', url);

  const ticketsHeader =
    'ticket_no,ticket_id,serial_no,status,checked_in_at,holder_first_name,holder_last_name,holder_email,' +
    'ticket_type_id,ticket_type_name,performance_id,performance_title,performance_starts_at,order_no,order_id,' +
    'order_status,currency,unit_price_minor,total_minor,transferred_at,created_at,answer_company,answer_diet,answer_note';
  const ordersHeader =
    'order_no,order_id,status,channel,created_at,buyer_first_name,buyer_last_name,buyer_email,buyer_phone,' +
    'transaction_no,performance_id,performance_title,performance_starts_at,ticket_count,currency,' +
    'items_total_minor,service_fees_minor,surcharges_minor,taxes_minor,total_minor,order_total_minor,etickets_sent_at,' +
    'answer_company';

  const at = (seconds: number) => new Date(Date.parse(START) + seconds * 1000).toISOString();

  function ticketRows() {
    const [first, second, third] = fx.orders;
    const tk = (o: Order, tx: number, i: number) => o.transactions[tx]!.items[i]!;
    const row = (ticket: Ticket, o: Order, cells: string) =>
      `${ticket.ticket_no},${ticket.id},${ticket.serial_no},${cells.replaceAll('{order}', `${o.order_no},${o.id}`)}`;
    const general = `${fx.general},General,${fx.p1},Opening night,${P1}`;
    const vip = `${fx.vip},"VIP, front row",${fx.p2},,${P2}`;
    const firstHolder = `"'=HYPERLINK(""http://x"")","O'Brien, Jr.",a@example.test`;
    return {
      first: [
        row(
          tk(first, 0, 0),
          first,
          `checked_in,${at(3)},${firstHolder},${general},{order},placed,EUR,2500,2500,,${at(0)},'@Acme,vegan; nuts,`,
        ),
        row(
          tk(first, 0, 1),
          first,
          `purchased,,${firstHolder},${general},{order},placed,EUR,2500,2500,,${at(0)},'@Acme,,"line one\nline ""two"""`,
        ),
      ],
      second: [
        row(
          tk(second, 0, 0),
          second,
          `purchased,,Zoë,Ünal-Σ,zoe@example.test,${vip},{order},unpaid,EUR,9000,9000,,${at(1)},'-2+3,,'\tTabbed`,
        ),
      ],
      third: [
        row(
          tk(third, 0, 0),
          third,
          `purchased,,'+Plus,'-Minus,'-m@example.test,${general},{order},placed,EUR,2500,2500,,${at(2)},"Two\nlines",,"'\rCarriage"`,
        ),
        row(
          tk(third, 1, 0),
          third,
          `purchased,,'+Plus,'-Minus,'-m@example.test,${vip},{order},placed,EUR,9000,9000,,${at(2)},"Two\nlines",,"日本語, ok"`,
        ),
      ],
    };
  }

  const csv = (...lines: string[]) => lines.map((l) => `${l}\r\n`).join('');

  test('tickets.csv: the exact text, quoting, non-ASCII, formula escaping and answers as columns', async () => {
    const res = await get(`/v1/events/${fx.event.id}/exports/tickets.csv`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(
      res.headers['content-disposition'],
      `attachment; filename=Cafe-Noir-Jazz-tickets.csv; filename*=UTF-8''Caf%C3%A9-Noir-Jazz-tickets.csv`,
    );
    assert.equal(res.headers['cache-control'], 'no-store');
    const rows = ticketRows();
    assert.equal(res.body, csv(ticketsHeader, ...rows.first, ...rows.second, ...rows.third));
  });

  test('orders.csv: one row per order and performance, totals and the once-per-order answers', async () => {
    const [first, second, third] = fx.orders;
    const res = await get(`/v1/events/${fx.event.id}/exports/orders.csv`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(
      res.headers['content-disposition'],
      `attachment; filename=Cafe-Noir-Jazz-orders.csv; filename*=UTF-8''Caf%C3%A9-Noir-Jazz-orders.csv`,
    );
    const p1 = `${fx.p1},Opening night,${P1}`;
    const p2 = `${fx.p2},,${P2}`;
    const tx = (o: Order, i: number) => o.transactions[i]!.transaction_no;
    assert.equal(
      res.body,
      csv(
        ordersHeader,
        `${first.order_no},${first.id},placed,box_office,${at(0)},"'=HYPERLINK(""http://x"")","O'Brien, Jr.",a@example.test,'+44 20 7946 0000,${tx(first, 0)},${p1},2,EUR,5000,0,0,0,5000,5000,,'@Acme`,
        `${second.order_no},${second.id},unpaid,box_office,${at(1)},Zoë,Ünal-Σ,zoe@example.test,,${tx(second, 0)},${p2},1,EUR,9000,0,0,0,9000,9000,,'-2+3`,
        `${third.order_no},${third.id},placed,box_office,${at(2)},'+Plus,'-Minus,'-m@example.test,,${tx(third, 0)},${p1},1,EUR,2500,0,0,0,2500,11500,,"Two\nlines"`,
        `${third.order_no},${third.id},placed,box_office,${at(2)},'+Plus,'-Minus,'-m@example.test,,${tx(third, 1)},${p2},1,EUR,9000,0,0,0,9000,11500,,"Two\nlines"`,
      ),
    );
  });

  test('performance_id: only that performance, and its start in the file name', async () => {
    const [, second, third] = fx.orders;
    const tickets = await get(`/v1/events/${fx.event.id}/exports/tickets.csv?performance_id=${fx.p2}`);
    assert.equal(tickets.statusCode, 200, tickets.body);
    const rows = ticketRows();
    assert.equal(tickets.body, csv(ticketsHeader, ...rows.second, rows.third[1]!));
    assert.equal(
      tickets.headers['content-disposition'],
      `attachment; filename=Cafe-Noir-Jazz-2026-07-02T1930-tickets.csv; filename*=UTF-8''Caf%C3%A9-Noir-Jazz-2026-07-02T1930-tickets.csv`,
    );
    const orders = await get(`/v1/events/${fx.event.id}/exports/orders.csv?performance_id=${fx.p2}`);
    assert.equal(orders.statusCode, 200, orders.body);
    const lines = orders.body.split('\r\n');
    assert.deepEqual(
      lines.map((l) => l.split(',').slice(0, 1)[0]),
      ['order_no', second.order_no, third.order_no, ''],
      'the orders with a transaction on that performance, that transaction only',
    );
    assert.ok(lines[2]!.includes(`,${third.transactions[1]!.transaction_no},`));
  });

  test('bom=true starts the file with the UTF-8 byte order mark; bom=false and no bom do not', async () => {
    const withBom = await get(`/v1/events/${fx.event.id}/exports/tickets.csv?bom=true`);
    assert.equal(withBom.statusCode, 200);
    assert.deepEqual([...withBom.rawPayload.subarray(0, 4)], [0xef, 0xbb, 0xbf, 0x74]);
    const plain = await get(`/v1/events/${fx.event.id}/exports/tickets.csv`);
    assert.equal(withBom.rawPayload.subarray(3).toString('utf8'), plain.body);
    const off = await get(`/v1/events/${fx.event.id}/exports/orders.csv?bom=false`);
    assert.equal(off.rawPayload[0], 'o'.charCodeAt(0));
    const ordersBom = await get(`/v1/events/${fx.event.id}/exports/orders.csv?bom=true`);
    assert.ok(ordersBom.body.startsWith('\uFEFForder_no,'));
  });

  test('an event without orders: the header row alone', async () => {
    const empty = await createEvent(t, fx.org.key, { title: '日本 ライブ' });
    const res = await get(`/v1/events/${empty.id}/exports/orders.csv`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, csv(ordersHeader.replace(',answer_company', '')));
    assert.equal(
      res.headers['content-disposition'],
      `attachment; filename=orders.csv; filename*=UTF-8''%E6%97%A5%E6%9C%AC-%E3%83%A9%E3%82%A4%E3%83%96-orders.csv`,
    );
  });

  test("another organizer's event, an unknown and a malformed id: 404", async () => {
    const stranger = await t.createOrganizer();
    for (const kind of ['orders', 'tickets']) {
      for (const id of [fx.event.id, UNKNOWN, 'nope']) {
        const res = await get(`/v1/events/${id}/exports/${kind}.csv`, stranger.readKey);
        assert.equal(res.statusCode, 404, `${kind} ${id}`);
        assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.deepEqual(res.json(), problemOf(404, 'Event not found.', 'resource_not_found'));
      }
    }
  });

  test('bad parameters: 400 with code and param', async () => {
    const base = `/v1/events/${fx.event.id}/exports`;
    const bad = async (url: string, detail: string, code: 'parameter_invalid' | 'parameter_unknown', param: string) => {
      const res = await get(url);
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.deepEqual(res.json(), problemOf(400, detail, code, param));
    };
    await bad(`${base}/tickets.csv?bom=yes`, '`bom` must be of type boolean.', 'parameter_invalid', 'bom');
    await bad(
      `${base}/orders.csv?performance_id=42`,
      '`performance_id` must be a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex digits).',
      'parameter_invalid',
      'performance_id',
    );
    await bad(`${base}/orders.csv?format=xlsx`, 'Unknown field `format` in query.', 'parameter_unknown', 'format');
    const foreign = performanceIdsOf(fx.other)[0]!;
    for (const kind of ['orders', 'tickets']) {
      await bad(
        `${base}/${kind}.csv?performance_id=${foreign}`,
        `performance_id \`${foreign}\` is not a performance of this event.`,
        'parameter_invalid',
        'performance_id',
      );
      await bad(
        `${base}/${kind}.csv?performance_id=${UNKNOWN}`,
        `performance_id \`${UNKNOWN}\` is not a performance of this event.`,
        'parameter_invalid',
        'performance_id',
      );
    }
  });

  test('scopes: a read key exports, a write-only key is refused', async () => {
    const res = await get(`/v1/events/${fx.event.id}/exports/tickets.csv`, fx.org.writeKey);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'forbidden_scope');
  });
});
