/**
 * DATABASE_REPLICA_URL against a real streaming replica (docs/deploy.md, "A read
 * replica"): a primary and its hot standby of our own (test/helpers/replica-cluster.ts).
 * Which database answered is read off the replica's handle, whose every statement a
 * counting plugin sees (the tracker's polls use a handle of their own and are not
 * counted). Replay is paused on the standby to make it lag on purpose.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openReadReplica, type ReadReplica } from '../../src/db/replica.ts';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../helpers/app.ts';
import { CountingPlugin } from '../helpers/counting-plugin.ts';
import type { TestDatabase } from '../helpers/database.ts';
import { onPostgres } from '../helpers/database.ts';
import { closedPort } from '../helpers/ports.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { orderBody, postOrder, setupSale, type Sale } from '../helpers/orders.ts';
import { startReplicaCluster, type ReplicaCluster } from '../helpers/replica-cluster.ts';

const DEGRADED = 'read replica degraded: every read goes to the primary';
const RECOVERED = 'read replica recovered: replica-routed reads go to it again';
const RETRIED = 'a replica read failed: answered from the primary';

/** Until `condition` holds, every 10 ms, for at most 5 s. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a read replica (DATABASE_REPLICA_URL)', { skip: !onPostgres && 'PostgreSQL only' }, () => {
  let cluster: ReplicaCluster;
  let database: TestDatabase;
  let replica: ReadReplica;
  let t: TestApp;
  let sale: Sale;
  let env: Record<string, string>;
  const counter = new CountingPlugin();
  const log = captureLog('info');
  /** The levels of the lines with this message since `from` lines were logged. */
  const levelsOf = (msg: string, from = 0) =>
    log.lines
      .slice(from)
      .filter((line) => line.msg === msg)
      .map((line) => pino.levels.labels[line.level as number]);

  before(async () => {
    cluster = await startReplicaCluster();
    const handle = await openDatabase({ databaseUrl: cluster.primaryUrl, poolSize: 10 });
    database = { ...handle, url: cluster.primaryUrl };
    await migrate(database.db);
    await cluster.replicaCaughtUp();
    env = {
      ADMIN_TOKEN,
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_REPLICA_URL: cluster.replicaUrl,
      DATABASE_REPLICA_MAX_LAG: '1s',
    };
    const opened = (await openReadReplica(loadConfig(env), database.db, { logger: log.logger, intervalMs: 25 }))!;
    replica = { ...opened, db: opened.db.withPlugin(counter) };
    t = await createTestApp({ database, env, appOptions: { readReplica: replica, logger: log.logger } });
    await until(() => replica.tracker.health().healthy, 'the replica to serve reads');
    sale = await setupSale(t);
  });
  after(async () => {
    await t?.close();
    await replica?.close();
    await database?.close();
    await cluster?.close();
  });

  /** What the replica's handle ran during `read`. */
  async function onReplica<T>(read: () => Promise<T>): Promise<{ result: T; replicaQueries: number }> {
    const before = counter.queries;
    const result = await read();
    return { result, replicaQueries: counter.queries - before };
  }

  const ordersOf = async (key: string) => {
    const res = await t.api(key, 'GET', '/v1/orders');
    assert.equal(res.statusCode, 200);
    return (res.json().data as { id: string }[]).map((order) => order.id);
  };

  /** Until the replica has replayed everything and the writer's reads may go there again. */
  async function settled(): Promise<void> {
    await cluster.replicaCaughtUp();
    await until(
      async () => (await onReplica(() => ordersOf(sale.org.key))).replicaQueries > 0,
      'the writer to read from the replica',
    );
  }

  test('a paused replica serves other keys its old rows, the writer its own writes; lagging, all go to the primary', async () => {
    await settled();
    const from = log.lines.length;
    // The read-only key never writes: its reads go to the replica.
    // One statement for the page.
    const first = await onReplica(() => ordersOf(sale.org.readKey));
    assert.deepEqual(first.result, []);
    assert.equal(first.replicaQueries, 1);

    await cluster.onReplica('SELECT pg_wal_replay_pause()');
    try {
      await lagging(from);
    } finally {
      await cluster.onReplica('SELECT pg_wal_replay_resume()');
    }
    await until(() => replica.tracker.health().healthy, 'the replica to recover');
    const recovered = await onReplica(() => ordersOf(sale.org.readKey));
    assert.equal(recovered.result.length, 1);
    assert.equal(recovered.replicaQueries, 1);
    assert.deepEqual(levelsOf(DEGRADED, from), ['warn']);
    assert.deepEqual(levelsOf(RECOVERED, from), ['info']);
  });

  /** With replay paused: an order by the writer, read by it and by the read-only key, until the replica lags. */
  async function lagging(from: number): Promise<void> {
    const created = await postOrder(t, sale.org.key, orderBody(sale));
    assert.equal(created.statusCode, 201);
    const orderId = created.json().id as string;

    // Within the max lag: the other key reads the paused replica, which has no such order.
    const stale = await onReplica(() => ordersOf(sale.org.readKey));
    assert.deepEqual(stale.result, []);
    assert.equal(stale.replicaQueries, 1);
    const missing = await t.api(sale.org.readKey, 'GET', `/v1/orders/${orderId}`);
    assert.equal(missing.statusCode, 404);
    // The writer reads its own write: from the primary.
    const own = await onReplica(() => ordersOf(sale.org.key));
    assert.deepEqual(own, { result: [orderId], replicaQueries: 0 });
    assert.deepEqual(levelsOf(DEGRADED, from), []);

    // Past the max lag the paused replica lags: every read goes to the primary, one warning.
    await until(() => !replica.tracker.health().healthy, 'the replica to count as lagging');
    const degraded = await onReplica(() => ordersOf(sale.org.readKey));
    assert.deepEqual(degraded, { result: [orderId], replicaQueries: 0 });
    assert.equal((await t.api(sale.org.readKey, 'GET', `/v1/orders/${orderId}`)).statusCode, 200);
    assert.deepEqual(levelsOf(DEGRADED, from), ['warn']);
    assert.equal(
      log.withMessage(DEGRADED).at(-1)!.reason,
      "the replica's replay is more than 1000 ms behind the primary",
    );
  }

  test('writes, idempotent replays, check-in and the door list never touch the replica', async () => {
    await settled();
    const headers = { 'idempotency-key': 'replica-test-order' };
    const ordered = await onReplica(async () => {
      const created = await postOrder(t, sale.org.key, orderBody(sale), headers);
      assert.equal(created.statusCode, 201);
      const replayed = await postOrder(t, sale.org.key, orderBody(sale), headers);
      assert.equal(replayed.statusCode, 201);
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      return created.json().id as string;
    });
    assert.equal(ordered.replicaQueries, 0);
    // A replica-routed read (it may go to the replica once it replayed the sale).
    const tickets = await t.api(sale.org.key, 'GET', `/v1/tickets?order_id=${ordered.result}`);
    assert.equal(tickets.statusCode, 200);
    const ticketId = tickets.json().data[0].id as string;
    const door = await onReplica(async () => {
      const checkedIn = await t.api(sale.org.key, 'POST', `/v1/tickets/${ticketId}/check_in`);
      assert.equal(checkedIn.statusCode, 200);
      // A GET that writes (a door device's key stamps its last sync): the primary, whoever asks.
      const list = await t.api(sale.org.readKey, 'GET', '/v1/door_tickets');
      assert.equal(list.statusCode, 200);
    });
    assert.equal(door.replicaQueries, 0);
  });

  test('availability and CSV exports read from the replica while it keeps up', async () => {
    await settled();
    const availability = await onReplica(() =>
      t.api(sale.org.readKey, 'GET', `/v1/performances/${sale.performanceId}/availability`),
    );
    assert.equal(availability.result.statusCode, 200);
    assert.equal(availability.result.json().performance_remaining, 98);
    assert.equal(availability.replicaQueries, 2);

    const csv = await onReplica(() => t.api(sale.org.readKey, 'GET', `/v1/events/${sale.event.id}/exports/orders.csv`));
    assert.equal(csv.result.statusCode, 200);
    assert.equal(csv.result.headers['content-type'], 'text/csv; charset=utf-8');
    // The header line and one line per order.
    assert.equal(csv.result.body.trimEnd().split('\r\n').length, 3);
    // Every statement of the export, its plan and its batches, on the replica.
    assert.equal(csv.replicaQueries, 3);
  });

  test('a read the replica fails between two polls is answered from the primary', async () => {
    await settled();
    // The tracker still polls the healthy standby; the reads meet a server that refuses them.
    const port = await closedPort();
    const refusing = await openDatabase({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres` });
    const healthy = replica.db;
    replica.db = refusing.db;
    const from = log.lines.length;
    try {
      const res = await t.api(sale.org.readKey, 'GET', '/v1/orders');
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().data.length, 2);
    } finally {
      replica.db = healthy;
      await refusing.close();
    }
    assert.deepEqual(levelsOf(RETRIED, from), ['info']);
    assert.deepEqual(levelsOf(DEGRADED, from), ['warn']);
    assert.equal(log.withMessage(DEGRADED).at(-1)!.reason, `the replica fails: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  test(
    'with REDIS_URL, a key that wrote through one process reads its write through another',
    {
      skip: !process.env.TEST_REDIS_URL && 'needs TEST_REDIS_URL',
    },
    async () => {
      // Two more API processes of the deployment, each with its own tracker, sharing Redis.
      const shared = { ...env, REDIS_URL: process.env.TEST_REDIS_URL! };
      const processes: TestApp[] = [];
      const counters: CountingPlugin[] = [];
      const replicas: ReadReplica[] = [];
      try {
        for (let n = 0; n < 2; n++) {
          const opened = (await openReadReplica(loadConfig(shared), database.db, { intervalMs: 25 }))!;
          counters.push(new CountingPlugin());
          replicas.push({ ...opened, db: opened.db.withPlugin(counters[n]!) });
          processes.push(await createTestApp({ database, env: shared, appOptions: { readReplica: replicas[n] } }));
        }
        const [writer, reader] = processes as [TestApp, TestApp];
        const own = await setupSale(writer);
        await cluster.replicaCaughtUp();
        await until(() => replicas.every((r) => r.tracker.health().healthy), 'both trackers to serve reads');
        const readerQueries = async (key: string) => {
          const before = counters[1]!.queries;
          const res = await reader.api(key, 'GET', '/v1/orders');
          assert.equal(res.statusCode, 200);
          return {
            ids: (res.json().data as { id: string }[]).map((o) => o.id),
            replicaQueries: counters[1]!.queries - before,
          };
        };
        // The read-only key has not written for long: the reader serves it from the replica.
        await until(
          async () => (await readerQueries(own.org.readKey)).replicaQueries === 1,
          'the replica to serve reads',
        );

        await cluster.onReplica('SELECT pg_wal_replay_pause()');
        try {
          const created = await postOrder(writer, own.org.key, orderBody(own));
          assert.equal(created.statusCode, 201);
          // The writer's key, through the other process: the primary, its order there.
          assert.deepEqual(await readerQueries(own.org.key), { ids: [created.json().id], replicaQueries: 0 });
          // Another key of the organizer: the paused replica, no order yet.
          assert.deepEqual(await readerQueries(own.org.readKey), { ids: [], replicaQueries: 1 });
          // Without Redis (the file's own process) nothing tells it of the write: the replica's old rows.
          const unshared = await t.api(own.org.key, 'GET', '/v1/orders');
          assert.deepEqual(unshared.json().data, []);
        } finally {
          await cluster.onReplica('SELECT pg_wal_replay_resume()');
        }
      } finally {
        for (const app of processes) await app.close();
        for (const r of replicas) await r.close();
      }
    },
  );

  test('a stopped replica: every read answers 200 from the primary, with one warning', async () => {
    await settled();
    const from = log.lines.length;
    const orders = await ordersOf(sale.org.key);
    assert.equal(orders.length, 2);
    await cluster.stopReplica();

    const reads = [
      `/v1/orders`,
      `/v1/orders/${orders[0]}`,
      `/v1/performances/${sale.performanceId}/availability`,
      `/v1/events/${sale.event.id}/exports/orders.csv`,
      `/v1/events`,
    ];
    for (let round = 0; round < 3; round++)
      for (const url of reads) {
        const res = await t.api(sale.org.readKey, 'GET', url);
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      }
    assert.deepEqual(await ordersOf(sale.org.readKey), orders);
    const availability = await t.api(sale.org.readKey, 'GET', `/v1/performances/${sale.performanceId}/availability`);
    assert.equal(availability.json().performance_remaining, 98);
    await until(() => !replica.tracker.health().healthy, 'the tracker to find the replica down');
    assert.deepEqual(levelsOf(DEGRADED, from), ['warn']);
  });
});
