/**
 * Debian's HAProxy in front of API processes on loopback, as a deployment's load balancer
 * (docs/deploy.md, "Rolling restarts behind a load balancer"; deploy/haproxy.cfg has the
 * same settings): round robin, `GET /readyz` every 200 ms, one failed check takes a server
 * out of rotation and two passed ones put it back, a connection that fails before the
 * request is sent is retried on the other server. It runs in the foreground (`-db`) as a
 * child of the test; its admin socket reports each server's state and counters.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closedPort } from './ports.ts';

const HAPROXY = '/usr/sbin/haproxy';

/** One backend server as HAProxy's `show stat` reports it. */
interface ServerStat {
  /** UP, DOWN, or a transition such as `UP 1/2`. */
  status: string;
  /** Connections that failed before the request was sent (`econ`). */
  connectionErrors: number;
  /** Responses that failed: aborted or empty (`eresp`). */
  responseErrors: number;
  /** Requests HAProxy sent again to the same server (`wretr`) or to another (`wredis`). */
  retries: number;
  redispatches: number;
  /** Responses with a 5xx status (`hrsp_5xx`), HAProxy's own 502/503/504 included. */
  responses5xx: number;
}

interface Balancer {
  port: number;
  url: string;
  /** The backend's servers, `api1`, `api2`, … in the order of the ports given. */
  servers(): Promise<Record<string, ServerStat>>;
  /** Resolves once every named server has the given status (polled every 50 ms). */
  waitForStatus(status: Record<string, 'UP' | 'DOWN'>, timeoutMs?: number): Promise<void>;
  output(): string;
  stop(): Promise<void>;
}

/** The configuration: the settings docs/deploy.md explains, for servers on loopback ports. */
function configuration(port: number, serverPorts: number[], socket: string): string {
  return [
    'global',
    `  stats socket ${socket} mode 600 level admin`,
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-keep-alive 10s',
    // A check answered late is a failed one, and with fall 1 one late answer takes the
    // server out. The default bound is the 200 ms interval: a healthy process busy with
    // the load (or a neighbour starting) answered later than that, and while the other
    // restarts, nothing was left in rotation. A draining process answers its 503 at once.
    '  timeout check 5s',
    // Only a request that never reached a server is sent again, to the other one: the
    // drain is what keeps sent requests from failing.
    '  retries 2',
    '  retry-on conn-failure',
    '  option redispatch 1',
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  default_backend marquee',
    'backend marquee',
    '  balance roundrobin',
    '  option httpchk',
    '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host marquee',
    '  http-check expect status 200',
    '  default-server inter 200ms fall 1 rise 2',
    ...serverPorts.map((p, i) => `  server api${i + 1} 127.0.0.1:${p} check`),
    '',
  ].join('\n');
}

/** Sends one command to the admin socket and returns its answer. */
async function admin(socket: string, command: string): Promise<string> {
  const connection = connect(socket);
  let answer = '';
  connection.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  await once(connection, 'connect');
  connection.end(`${command}\n`);
  await once(connection, 'close');
  return answer;
}

export async function startHaproxy(serverPorts: number[]): Promise<Balancer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'marquee-haproxy-'));
  const socket = path.join(dir, 'admin.sock');
  const port = await closedPort();
  writeFileSync(path.join(dir, 'haproxy.cfg'), configuration(port, serverPorts, socket));
  const child = spawn(HAPROXY, ['-db', '-f', path.join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');

  const servers = async (): Promise<Record<string, ServerStat>> => {
    const [header, ...rows] = (await admin(socket, 'show stat')).trim().split('\n');
    const columns = header!.replace(/^# /, '').split(',');
    const at = (row: string[], name: string) => row[columns.indexOf(name)] ?? '';
    const stats: Record<string, ServerStat> = {};
    for (const row of rows.map((line) => line.split(','))) {
      if (at(row, 'pxname') !== 'marquee' || !/^api\d+$/.test(at(row, 'svname'))) continue;
      stats[at(row, 'svname')] = {
        status: at(row, 'status'),
        connectionErrors: Number(at(row, 'econ')),
        responseErrors: Number(at(row, 'eresp')),
        retries: Number(at(row, 'wretr')),
        redispatches: Number(at(row, 'wredis')),
        responses5xx: Number(at(row, 'hrsp_5xx')),
      };
    }
    return stats;
  };

  // Ready once the admin socket answers.
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await servers();
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`HAProxy did not start: ${output}`, { cause: err });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    servers,
    async waitForStatus(status, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const now = await servers();
        if (Object.entries(status).every(([name, expected]) => now[name]?.status === expected)) return;
        if (Date.now() > until)
          throw new Error(`HAProxy servers ${JSON.stringify(now)}, expected ${JSON.stringify(status)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
