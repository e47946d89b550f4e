/**
 * Marquee through PgBouncer in transaction pooling mode (docs/deploy.md, "PgBouncer"): two
 * organizers' traffic through two server connections, with every message Marquee sends
 * read off the wire, and server sessions left with foreign settings by another client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import { inlineParameters } from '../../src/db/literals.ts';
import { sendAhead, sendLast, withTransaction } from '../../src/db/transaction.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';
import { orderBody, postOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.ts';
import { createWireLog, type WireLog } from '../helpers/postgres-wire.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const SET_LOCALS = 'SET LOCAL statement_timeout = 7000; SET LOCAL lock_timeout = 3000';
const OPENS_WITH_SETTINGS = new RegExp(`^(?:begin|start transaction)[^;]*; ${SET_LOCALS}`, 'i');

describe(
  'through PgBouncer (transaction pooling, 2 server connections)',
  { skip: !onPostgres && 'PostgreSQL only' },
  () => {
    let bouncer: PgBouncer;
    let proxy: TcpProxy;
    let wire: WireLog;
    let database: TestDatabase;
    let t: TestApp;

    before(async () => {
      bouncer = await startPgBouncer({ poolSize: 2 });
      // Marquee -> wire reader -> PgBouncer -> PostgreSQL.
      wire = createWireLog();
      proxy = await startTcpProxy(bouncer.port, '127.0.0.1', wire.tap);
      database = await createTestDatabase({
        poolerUrl: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
        statementTimeoutMs: 7000,
        lockTimeoutMs: 3000,
        poolSize: 8,
      });
      t = await createTestApp({ database });
    });
    after(async () => {
      await t?.close();
      await database?.close();
      await proxy?.close();
      await bouncer?.stop();
    });

    /** Clients of PgBouncer outside Marquee, each holding a server connection in a transaction. */
    async function onEveryServerConnection<T>(statement: string): Promise<T[]> {
      const clients = [0, 1].map(() => new pg.Client({ connectionString: bouncer.through(database.url!) }));
      try {
        await Promise.all(clients.map((client) => client.connect()));
        // Two open transactions pin both server connections of the pool, one each.
        await Promise.all(clients.map((client) => client.query('BEGIN')));
        const answers = await Promise.all(clients.map((client) => client.query(statement)));
        await Promise.all(clients.map((client) => client.query('COMMIT')));
        return answers.map((answer) => answer.rows[0] as T);
      } finally {
        await Promise.all(clients.map((client) => client.end()));
      }
    }

    const SETTINGS = sql<{
      statement_timeout: string;
      lock_timeout: string;
    }>`SELECT current_setting('statement_timeout') AS statement_timeout, current_setting('lock_timeout') AS lock_timeout`;

    test('two organizers sell and read; every statement runs under its timeouts and none leaks', async () => {
      // Another client of the pooler leaves session settings behind on both server connections.
      await onEveryServerConnection(
        "SELECT set_config('statement_timeout', '0', false), set_config('lock_timeout', '0', false)",
      );
      const unitsBefore = wire.units().length;

      const [a, b] = await Promise.all([setupSale(t), setupSale(t)]);
      const traffic = async (sale: Sale, tag: string) => {
        const statuses: number[] = [];
        for (let round = 0; round < 5; round++) {
          const answers = await Promise.all([
            postOrder(t, sale.org.key, orderBody(sale, {}, 2)),
            postOrder(t, sale.org.key, orderBody(sale), { 'idempotency-key': `${tag}-${round}` }),
            t.api(sale.org.key, 'GET', '/v1/orders?limit=5'),
            t.api(sale.org.key, 'GET', `/v1/events/${sale.event.id}`),
            t.api(sale.org.key, 'GET', `/v1/performances/${sale.performanceId}/availability`),
          ]);
          statuses.push(...answers.map((answer) => answer.statusCode));
        }
        return statuses;
      };
      const probes = async () => {
        const seen = [];
        for (let i = 0; i < 5; i++) {
          seen.push((await SETTINGS.execute(database.db)).rows[0]);
          seen.push(await withTransaction(database.db, async (trx) => (await SETTINGS.execute(trx)).rows[0]));
          seen.push(
            await withTransaction(database.db, async (conn) => {
              const settings = (await sendAhead(conn, SETTINGS)).rows[0];
              await sendLast(conn, 'SELECT 1');
              return settings;
            }),
          );
        }
        return seen;
      };
      const [aStatuses, bStatuses, probed] = await Promise.all([traffic(a, 'a'), traffic(b, 'b'), probes()]);

      assert.deepEqual(aStatuses, Array.from({ length: 5 }, () => [201, 201, 200, 200, 200]).flat());
      assert.deepEqual(bStatuses, aStatuses);
      assert.deepEqual(
        probed,
        Array.from({ length: 15 }, () => ({ statement_timeout: '7s', lock_timeout: '3s' })),
      );

      // Each organizer sees its own ten orders, 15 tickets, and no other.
      for (const sale of [a, b]) {
        const orders = await t.api(sale.org.key, 'GET', '/v1/orders?limit=100');
        assert.equal(orders.json().data.length, 10);
        const availability = await t.api(sale.org.key, 'GET', `/v1/performances/${sale.performanceId}/availability`);
        assert.equal(availability.json().performance_remaining, 100 - 15);
      }

      // On the wire: whatever Marquee sent outside a transaction carried the timeouts first,
      // and nothing was prepared under a name (it would not exist on the next server connection).
      const units = wire.units().slice(unitsBefore);
      assert.ok(units.length > 200, `${units.length} units on the wire`);
      const outside = units.filter((unit) => unit.status === 'I');
      assert.ok(outside.length > 50, `${outside.length} units outside a transaction`);
      assert.deepEqual(
        outside.filter(
          (unit) =>
            !(unit.statements[0]!.startsWith(`${SET_LOCALS}; `) || OPENS_WITH_SETTINGS.test(unit.statements[0]!)),
        ),
        [],
      );
      assert.deepEqual(
        units.flatMap((unit) => unit.prepared).filter((name) => name !== ''),
        [],
      );

      // Marquee's SET LOCALs ended with its transactions: the foreign settings are still there.
      assert.deepEqual(
        await onEveryServerConnection(
          "SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l",
        ),
        [
          { s: '0', l: '0' },
          { s: '0', l: '0' },
        ],
      );
    });

    test('without DATABASE_DIRECT_URL (startup options), PgBouncer refuses the connection', async () => {
      const direct = await openDatabase({ databaseUrl: bouncer.through(database.url!), poolSize: 1 });
      try {
        await assert.rejects(sql`SELECT 1`.execute(direct.db), /unsupported startup parameter: options/);
      } finally {
        await direct.close();
      }
    });
  },
);

test('parameters become literals; placeholders in quotes, identifiers, bodies and comments stay', () => {
  assert.equal(
    inlineParameters(`SELECT $1::int, '$1', "$2", $$ $1 $$, $f$ $2 $f$, E'\\'$1', $2 -- $1\n/* $2 */, $10`, [
      7,
      "it's",
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      [1, 2],
    ]),
    `SELECT '7'::int, '$1', "$2", $$ $1 $$, $f$ $2 $f$, E'\\'$1', 'it''s' -- $1\n/* $2 */, '{"1","2"}'`,
  );
  assert.equal(inlineParameters('SELECT $1', [Buffer.from('x')]), undefined);
});
