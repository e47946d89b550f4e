/**
 * The read replica's state at scrape time (docs/operations.md, "Metrics"): whether it
 * serves reads, and how many bytes of WAL it has yet to replay. Read from the tracker of
 * the app that serves (src/http/read-routing.ts); absent without DATABASE_REPLICA_URL.
 */
import { Gauge } from 'prom-client';
import { registry } from './registry.ts';

interface ReplicaHealth {
  health(): { healthy: boolean; lagBytes: number | undefined };
}

let watched: ReplicaHealth | undefined;

new Gauge({
  name: 'marquee_db_replica_healthy',
  help: 'Whether the read replica (DATABASE_REPLICA_URL) serves reads now: 1 yes, 0 every read goes to the primary.',
  registers: [registry],
  collect() {
    if (watched) this.set(watched.health().healthy ? 1 : 0);
  },
});

new Gauge({
  name: 'marquee_db_replica_lag_bytes',
  help: "Bytes of WAL the read replica has yet to replay: the primary's newest flush position minus the replica's replay position.",
  registers: [registry],
  collect() {
    const lag = watched?.health().lagBytes;
    if (lag !== undefined) this.set(lag);
  },
});

/** Reports this tracker's state until the returned function is called. */
export function watchReplica(tracker: ReplicaHealth): () => void {
  watched = tracker;
  return () => {
    if (watched === tracker) watched = undefined;
  };
}
