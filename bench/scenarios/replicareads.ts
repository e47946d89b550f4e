/**
 * Reads beside a sale, with and without a read replica (docs/deploy.md, "A read
 * replica"): a primary and its hot standby of our own (test/helpers/replica-cluster.ts),
 * one `ROLE=api` process. For 10 s, 32 connections list an organizer's orders
 * (`GET /v1/orders?limit=20`, a key that never writes) while 64 connections sell to
 * another organizer (`POST /v1/orders`, 2 tickets each, a performance too large to sell
 * out). Once on the primary alone, once with DATABASE_REPLICA_URL; the same pair of
 * servers, a fresh database each time.
 *
 * Where the reads went is read off the standby: its transactions in that database
 * (pg_stat_database.xact_commit) from the end of the warm-up to the API process's exit,
 * which flushes its backends' statistics; the tracker's polls (10 a second) count too.
 */
import type pg from 'pg';
import { startReplicaCluster, type ReplicaCluster } from '../../test/helpers/replica-cluster.ts';
import { withClient } from '../lib/db.ts';
import { countStatus, runLoad } from '../lib/load.ts';
import { createEvent, createOrganizerWithKey, mustCall, startMarquee, type MarqueeProcess } from '../lib/marquee.ts';
import { round } from '../lib/stats.ts';
import { check, type Check, type ScenarioOptions, type ScenarioResult } from './types.ts';

const READ_CONNECTIONS = 32;
const SALE_CONNECTIONS = 64;
const TICKETS_PER_ORDER = 2;
/** Orders of the read organizer: two pages of 20 and more. */
const LISTED_ORDERS = 60;
const READ_PATH = '/v1/orders?limit=20';

interface Phase {
  reads_req_per_s: number;
  reads_p99_ms: number;
  sale_tickets_per_s: number;
  sale_p99_ms: number;
  /** Transactions the standby ran in the database while measured. */
  replica_xacts: number;
  reads: number;
  read_failures: number;
  sale_failures: number;
}

function urlOf(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

async function replicaXacts(cluster: ReplicaCluster, database: string): Promise<number> {
  return withClient(cluster.replicaUrl, async (c) => {
    const { rows } = await c.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [
      database,
    ]);
    return Number(rows[0]?.n ?? 0);
  });
}

/** An organizer with LISTED_ORDERS orders to list, and another with a performance to sell. */
async function setup(proc: MarqueeProcess) {
  const reader = await createOrganizerWithKey(proc.base, 'Reader');
  const listed = await createEvent(proc.base, reader.key, {
    performances: 1,
    capacity: 1000,
    ticketTypes: [{ name: 'General', price_minor: 3500, quantity: null }],
  });
  for (let n = 0; n < LISTED_ORDERS; n++)
    await mustCall(proc.base, 'POST', '/v1/orders', reader.key, {
      items: [
        {
          performance_id: listed.ticket_types[0]!.prices[0]!.performance_id,
          ticket_type_id: listed.ticket_types[0]!.id,
          quantity: 1,
        },
      ],
      buyer: { first_name: 'Listed', last_name: `No ${n}`, email: `listed${n}@example.test` },
      tender: 'cash',
    });
  // A key of its own that never writes: its reads are the replica's whenever it keeps up.
  const seller = await createOrganizerWithKey(proc.base, 'Seller');
  const sale = await createEvent(proc.base, seller.key, {
    performances: 1,
    capacity: 1_000_000,
    ticketTypes: [{ name: 'General', price_minor: 3500, quantity: null }],
  });
  return {
    readKey: reader.key,
    saleKey: seller.key,
    performanceId: sale.ticket_types[0]!.prices[0]!.performance_id,
    ticketTypeId: sale.ticket_types[0]!.id,
  };
}

async function measure(
  cluster: ReplicaCluster,
  database: string,
  withReplica: boolean,
  durationS: number,
): Promise<Phase> {
  const proc = await startMarquee({
    role: 'api',
    databaseUrl: urlOf(cluster.primaryUrl, database),
    env: withReplica ? { DATABASE_REPLICA_URL: urlOf(cluster.replicaUrl, database) } : {},
  });
  try {
    const s = await setup(proc);
    await cluster.replicaCaughtUp();
    let n = 0;
    const sell = (seconds: number) =>
      runLoad({
        urls: [proc.base],
        connections: SALE_CONNECTIONS,
        durationS: seconds,
        method: 'POST',
        headers: { authorization: `Bearer ${s.saleKey}`, 'content-type': 'application/json' },
        next: () => ({
          path: '/v1/orders',
          body: JSON.stringify({
            items: [{ performance_id: s.performanceId, ticket_type_id: s.ticketTypeId, quantity: TICKETS_PER_ORDER }],
            buyer: { first_name: 'Buyer', last_name: `No ${n}`, email: `buyer${n++}@example.test` },
            tender: 'cash',
          }),
        }),
      });
    const read = (seconds: number) =>
      runLoad({
        urls: [proc.base],
        connections: READ_CONNECTIONS,
        durationS: seconds,
        path: READ_PATH,
        headers: { authorization: `Bearer ${s.readKey}` },
      });
    // Warm-up (JIT, both pools, prepared plans), not measured.
    await Promise.all([read(1), sell(1)]);
    const xactsBefore = await replicaXacts(cluster, database);
    const [reads, sale] = await Promise.all([read(durationS), sell(durationS)]);
    // A backend flushes its statistics at exit at the latest: stop the process, then count.
    await proc.stop();
    const xactsAfter = await replicaXacts(cluster, database);
    return {
      reads_req_per_s: round(reads.reqPerS),
      reads_p99_ms: reads.p99_ms,
      sale_tickets_per_s: round(((sale.statuses['201'] ?? 0) * TICKETS_PER_ORDER) / sale.durationS),
      sale_p99_ms: sale.p99_ms,
      replica_xacts: xactsAfter - xactsBefore,
      reads: reads.requests,
      read_failures: countStatus(reads.statuses, (status) => status !== 200) + reads.errors,
      sale_failures: countStatus(sale.statuses, (status) => status !== 201) + sale.errors,
    };
  } finally {
    await proc.stop();
  }
}

function phaseChecks(name: string, phase: Phase): Check[] {
  return [
    check(`${name}: every read answered 200`, phase.read_failures === 0, `${phase.read_failures} failed`),
    check(`${name}: every order answered 201`, phase.sale_failures === 0, `${phase.sale_failures} failed`),
  ];
}

export async function replicaReadsScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const durationS = opts.quick ? 3 : 10;
  const cluster = await startReplicaCluster();
  try {
    const databases = ['bench_primary_only', 'bench_with_replica'];
    await withClient(cluster.primaryUrl, async (c: pg.Client) => {
      for (const database of databases) await c.query(`CREATE DATABASE ${database}`);
    });
    const alone = await measure(cluster, databases[0]!, false, durationS);
    const replicated = await measure(cluster, databases[1]!, true, durationS);
    return {
      figures: {
        primary_only_reads_req_per_s: alone.reads_req_per_s,
        primary_only_reads_p99_ms: alone.reads_p99_ms,
        primary_only_sale_tickets_per_s: alone.sale_tickets_per_s,
        primary_only_sale_p99_ms: alone.sale_p99_ms,
        with_replica_reads_req_per_s: replicated.reads_req_per_s,
        with_replica_reads_p99_ms: replicated.reads_p99_ms,
        with_replica_sale_tickets_per_s: replicated.sale_tickets_per_s,
        with_replica_sale_p99_ms: replicated.sale_p99_ms,
        with_replica_replica_xacts: replicated.replica_xacts,
        with_replica_reads: replicated.reads,
      },
      checks: [
        ...phaseChecks('primary only', alone),
        ...phaseChecks('with replica', replicated),
        check(
          'with replica: the standby ran a transaction per read at least',
          replicated.replica_xacts >= replicated.reads,
          `${replicated.replica_xacts} transactions on the standby for ${replicated.reads} reads`,
        ),
      ],
      goals: [],
      notes: [
        'Primary, standby, Marquee and the load generator share the machine: the standby takes the reads off the ' +
          "primary's CPU, not off the machine's.",
      ],
    };
  } finally {
    await cluster.close();
  }
}
