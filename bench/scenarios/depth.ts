/**
 * Depth: 50,000 orders seeded with SQL through the real schema (orders + one
 * order_transaction each, spread over 10 performances and 1000 buyer e-mails, one
 * second apart), then the latency of GET /v1/orders?limit=100 for the first page, for
 * the page after walking 200 pages (keyset cursor), and of the email and
 * performance_id filters (first page, and deep for performance_id).
 */
import { createScratchDb, withClient } from '../lib/db.ts';
import { runLoad } from '../lib/load.ts';
import { createEvent, createOrganizerWithKey, mustCall, startMarquee } from '../lib/marquee.ts';
import { round } from '../lib/stats.ts';
import { check, type ScenarioOptions, type ScenarioResult } from './types.ts';

const SAMPLES = 200;

export async function depthScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const orders = opts.quick ? 25_000 : 50_000;
  const scratch = await createScratchDb('depth');
  const proc = await startMarquee({ role: 'api', databaseUrl: scratch.url });
  try {
    const { organizerId, key } = await createOrganizerWithKey(proc.base);
    const event = await createEvent(proc.base, key, {
      performances: 10,
      capacity: 100_000,
      ticketTypes: [{ name: 'General', price_minor: 3500, quantity: null }],
    });
    const performanceIds = event.ticket_types[0]!.prices.map((p) => p.performance_id);
    const seedStarted = performance.now();
    await withClient(scratch.url, async (c) => {
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO orders (organizer_id, order_no, status, channel, tender, buyer_first_name, buyer_last_name, buyer_email, currency, total_minor, paid_at, created_at, updated_at)
         SELECT $1, 'S' || lpad(g::text, 7, '0'), 'placed', 'box_office', 'cash', 'Buyer', 'No ' || g, 'buyer' || (g % 1000) || '@example.test', 'EUR', 3500,
                t, t, t
         FROM generate_series(1, $2) AS g, LATERAL (SELECT now() - make_interval(secs => $2 - g) AS t) AS ts`,
        [organizerId, orders],
      );
      await c.query(
        `INSERT INTO order_transactions (organizer_id, order_id, transaction_no, position, event_id, performance_id, delivery_method,
                                         items_total_minor, surcharges_minor, taxes_minor, service_fees_minor, total_minor, created_at)
         SELECT o.organizer_id, o.id, o.order_no || '-T1', 1, $2, ($3::uuid[])[1 + (substr(o.order_no, 2)::int % 10)], 'eticket', 3500, 0, 0, 0, 3500, o.created_at
         FROM orders o WHERE o.organizer_id = $1`,
        [organizerId, event.id, performanceIds],
      );
      await c.query('COMMIT');
      await c.query('ANALYZE orders');
      await c.query('ANALYZE order_transactions');
    });
    const seedS = (performance.now() - seedStarted) / 1000;

    const page = (query: string) =>
      mustCall<{ data: { id: string }[]; has_more: boolean }>(proc.base, 'GET', `/v1/orders?${query}`, key);
    const walk = async (filter: string, pages: number) => {
      let cursor: string | undefined;
      let seen = 0;
      for (let p = 0; p < pages; p++) {
        const res = await page(`limit=100${filter}${cursor ? `&starting_after=${cursor}` : ''}`);
        seen += res.data.length;
        cursor = res.data.at(-1)?.id;
        if (!res.has_more) break;
      }
      return { cursor: cursor!, seen };
    };
    const walkStarted = performance.now();
    const deep = await walk('', 200);
    const walkS = (performance.now() - walkStarted) / 1000;
    const perfDeep = await walk(`&performance_id=${performanceIds[3]}`, 20);

    // Sequential requests (1 connection) so latency is the request's own, not queueing.
    const measure = async (path: string) => {
      await runLoad({
        urls: [proc.base],
        connections: 1,
        amount: 20,
        path,
        headers: { authorization: `Bearer ${key}` },
      });
      const res = await runLoad({
        urls: [proc.base],
        connections: 1,
        amount: SAMPLES,
        path,
        headers: { authorization: `Bearer ${key}` },
      });
      return { p50: res.p50_ms, p95: res.p95_ms, ok: res.statuses['200'] === SAMPLES };
    };
    const first = await measure('/v1/orders?limit=100');
    const deepPage = await measure(`/v1/orders?limit=100&starting_after=${deep.cursor}`);
    const email = await measure('/v1/orders?limit=100&email=BUYER7%40example.test');
    const perfFirst = await measure(`/v1/orders?limit=100&performance_id=${performanceIds[3]}`);
    const perfDeepPage = await measure(
      `/v1/orders?limit=100&performance_id=${performanceIds[3]}&starting_after=${perfDeep.cursor}`,
    );
    const emailRes = await page('limit=100&email=BUYER7%40example.test');
    const deepRes = await page(`limit=100&starting_after=${deep.cursor}`);
    const ratio = deepPage.p50 / first.p50;
    return {
      figures: {
        orders_seeded: orders,
        seed_s: round(seedS, 2),
        walk_200_pages_s: round(walkS, 2),
        first_page_p50_ms: first.p50,
        first_page_p95_ms: first.p95,
        page_201_p50_ms: deepPage.p50,
        page_201_p95_ms: deepPage.p95,
        email_filter_p50_ms: email.p50,
        email_filter_p95_ms: email.p95,
        performance_filter_first_p50_ms: perfFirst.p50,
        performance_filter_page_21_p50_ms: perfDeepPage.p50,
        ratio_deep_to_first_p50: round(ratio, 3),
      },
      checks: [
        check('depth: walked 200 full pages', deep.seen === 20_000, `${deep.seen} orders seen`),
        check('depth: page 201 is full', deepRes.data.length === 100, `${deepRes.data.length} orders`),
        check(
          'depth: email filter (case-insensitive) finds that buyer only',
          emailRes.data.length === orders / 1000,
          `${emailRes.data.length} orders`,
        ),
        check(
          'depth: every measured request answered 200',
          [first, deepPage, email, perfFirst, perfDeepPage].every((m) => m.ok),
          '',
        ),
      ],
      goals: [{ name: 'depth: page 201 p50 ÷ first page p50', ratio: round(ratio, 3), bound: 1.5, kind: 'max' }],
      notes: [`Latency of ${SAMPLES} sequential requests on one connection per query (after 20 warm-up requests).`],
    };
  } finally {
    await proc.stop();
    await scratch.drop();
  }
}
