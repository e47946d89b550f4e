/**
 * `npm run bench`: runs the scenarios against Marquee child processes on the machine's
 * PostgreSQL (and PGlite for the embedded one), writes bench/results.md and results.json.
 *
 *   npm run bench                          every scenario, 3 runs each, medians quoted
 *   npm run bench -- --runs=1 --quick      smaller sizes, one run (smoke test)
 *   npm run bench -- --only=onsale,reads   a subset (results files are then partial)
 *   npm run bench -- --profile=DIR         the API process of on-sale/reads with --cpu-prof
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { postgresVersion } from './lib/db.ts';
import { settle } from './lib/settle.ts';
import { median, round } from './lib/stats.ts';
import { build, needsBuild } from '../scripts/build.mjs';
import { checkInScenario } from './scenarios/checkin.ts';
import { depthScenario } from './scenarios/depth.ts';
import { embeddedScenario } from './scenarios/embedded.ts';
import { exportsScenario } from './scenarios/exports.ts';
import { mailLoadScenario, mailScenario } from './scenarios/mail.ts';
import { noisyNeighbourScenario } from './scenarios/noisyneighbour.ts';
import { onSaleScenario } from './scenarios/onsale.ts';
import { oversoldScenario } from './scenarios/oversold.ts';
import { readsScenario } from './scenarios/reads.ts';
import { replicaReadsScenario } from './scenarios/replicareads.ts';
import { rollingRestartScenario } from './scenarios/rollingrestart.ts';
import { scaleOutScenario } from './scenarios/scaleout.ts';
import type { Check, Goal, ScenarioOptions, ScenarioResult } from './scenarios/types.ts';
import { webhooksScenario } from './scenarios/webhooks.ts';

const SCENARIOS: Record<string, { title: string; run: (opts: ScenarioOptions) => Promise<ScenarioResult> }> = {
  onsale: { title: 'On-sale rush (PostgreSQL) vs plain-SQL baseline', run: onSaleScenario },
  oversold: {
    title: 'Oversubscribed on-sale (demand ≥ 3 × supply) vs a refusing plain-SQL baseline',
    run: oversoldScenario,
  },
  reads: { title: 'Reads: GET /v1/events/{id} vs a bare node:http server', run: readsScenario },
  replicareads: {
    title: 'Reads beside a sale: GET /v1/orders with and without a read replica (DATABASE_REPLICA_URL)',
    run: replicaReadsScenario,
  },
  depth: { title: 'Depth: 50,000 orders, first page vs page 201 and filters', run: depthScenario },
  checkin: { title: 'Check-in storm: 1000 tickets × 4 concurrent check-ins', run: checkInScenario },
  webhooks: { title: 'Webhook throughput vs a bare undici sender', run: webhooksScenario },
  noisyneighbour: {
    title: "Webhook lag of one organizer while another's 20 endpoints hang",
    run: noisyNeighbourScenario,
  },
  scaleout: { title: 'Scale-out: 2 API + 2 worker processes, one PostgreSQL, one Redis', run: scaleOutScenario },
  rollingrestart: {
    title: 'Rolling restart: 2 API processes behind HAProxy, each restarted in turn under load',
    run: rollingRestartScenario,
  },
  embedded: { title: 'Embedded default (PGlite): on-sale rush and reads', run: embeddedScenario },
  mailload: {
    title: 'Mail load: GET /v1/events/{id} while a 1,000-ticket e-ticket mail renders and sends',
    run: mailLoadScenario,
  },
  mail: {
    title: 'E-mail throughput: 1,000 one-ticket orders and one 1,000-ticket order to an SMTP sink',
    run: mailScenario,
  },
  exports: {
    title: 'CSV exports: 10,000 and 100,000 tickets streamed, rows/s and the API process RSS',
    run: exportsScenario,
  },
};

interface Aggregated {
  key: string;
  title: string;
  runs: number;
  figures: Record<string, number>;
  perRun: Record<string, number[]>;
  checks: (Check & { failedRuns: number })[];
  goals: (Goal & { perRun: number[]; met: boolean })[];
  notes: string[];
  error?: string;
}

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  const hit = process.argv.find((a) => a === `--${name}` || a.startsWith(prefix));
  if (!hit) return undefined;
  return hit === `--${name}` ? 'true' : hit.slice(prefix.length);
}

async function main(): Promise<void> {
  const runs = Number(arg('runs') ?? 3);
  const quick = arg('quick') === 'true';
  const only = arg('only')?.split(',') ?? Object.keys(SCENARIOS);
  const profile = arg('profile');
  const out = arg('out') ?? 'bench/results';
  const startedAt = new Date();
  const loadBefore = loadavg()[0]!;
  const machine = {
    cores: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    memory_gib: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    postgresql: await postgresVersion(),
    load_average_at_start: round(loadBefore, 2),
  };
  console.log(`bench: ${JSON.stringify(machine)}; runs=${runs}${quick ? ' (quick)' : ''}`);
  // Marquee runs compiled, as in production; build now so that no measured start builds.
  if (needsBuild()) {
    console.log('bench: building dist/');
    if (build() !== 0) throw new Error('the build failed');
  }

  const results: Aggregated[] = [];
  for (const key of only) {
    const scenario = SCENARIOS[key];
    if (!scenario) throw new Error(`unknown scenario ${key}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    const collected: ScenarioResult[] = [];
    let error: string | undefined;
    for (let r = 0; r < runs; r++) {
      const settled = await settle();
      if (settled.idleShare < 0.9)
        console.log(
          `bench: the machine did not settle (${Math.round(settled.idleShare * 100)}% idle after ${settled.waitedMs} ms); running anyway`,
        );
      const t0 = performance.now();
      try {
        const res = await withTimeout(
          scenario.run({ quick, ...(profile ? { cpuProfDir: profile } : {}) }),
          15 * 60_000,
          key,
        );
        collected.push(res);
        console.log(
          `bench: ${key} run ${r + 1}/${runs} in ${round((performance.now() - t0) / 1000, 1)} s: ${JSON.stringify(res.figures)}`,
        );
        for (const c of res.checks.filter((c) => !c.ok)) console.log(`  CHECK FAILED ${c.name}: ${c.detail}`);
      } catch (err) {
        error = err instanceof Error ? (err.stack ?? err.message) : String(err);
        console.log(`bench: ${key} run ${r + 1} failed: ${error}`);
        break;
      }
    }
    results.push(aggregate(key, scenario.title, collected, error));
    // Written after every scenario, so an interrupted run keeps what it measured.
    const report = {
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      runs,
      quick,
      machine,
      load_average_at_end: round(loadavg()[0]!, 2),
      scenarios: results,
    };
    writeFileSync(`${out}.json`, JSON.stringify(report, null, 2) + '\n');
    writeFileSync(`${out}.md`, markdown(report));
  }
  console.log(`bench: wrote ${out}.md and ${out}.json`);
  const failed = results.some((r) => r.error || r.checks.some((c) => c.failedRuns > 0));
  process.exit(failed ? 1 : 0);
}

function withTimeout<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${label} exceeded its ${ms / 1000} s bound`)), ms);
    }),
  ]);
}

function aggregate(key: string, title: string, collected: ScenarioResult[], error?: string): Aggregated {
  const perRun: Record<string, number[]> = {};
  for (const res of collected) for (const [k, v] of Object.entries(res.figures)) (perRun[k] ??= []).push(v);
  const figures = Object.fromEntries(Object.entries(perRun).map(([k, vs]) => [k, round(median(vs), 3)]));
  const checks = new Map<string, Check & { failedRuns: number }>();
  for (const res of collected) {
    for (const c of res.checks) {
      const prev = checks.get(c.name);
      if (!prev) checks.set(c.name, { ...c, failedRuns: c.ok ? 0 : 1 });
      else {
        prev.failedRuns += c.ok ? 0 : 1;
        if (!c.ok) prev.detail = c.detail;
        prev.ok = prev.ok && c.ok;
      }
    }
  }
  const goals = new Map<string, Goal & { perRun: number[]; met: boolean }>();
  for (const res of collected) {
    for (const g of res.goals) {
      const prev = goals.get(g.name) ?? { ...g, perRun: [], met: false };
      prev.perRun.push(g.ratio);
      goals.set(g.name, prev);
    }
  }
  for (const g of goals.values()) {
    g.ratio = round(median(g.perRun), 3);
    g.met = g.kind === 'min' ? g.ratio >= g.bound : g.ratio <= g.bound;
  }
  const notes = [...new Set(collected.flatMap((r) => r.notes ?? []))];
  return {
    key,
    title,
    runs: collected.length,
    figures,
    perRun,
    checks: [...checks.values()],
    goals: [...goals.values()],
    notes,
    ...(error ? { error } : {}),
  };
}

function markdown(report: {
  started_at: string;
  finished_at: string;
  runs: number;
  quick: boolean;
  machine: Record<string, string | number>;
  load_average_at_end: number;
  scenarios: Aggregated[];
}): string {
  const m = report.machine;
  const lines: string[] = [
    '# Marquee benchmark results',
    '',
    `Generated by \`npm run bench\` (bench/run.ts). Started ${report.started_at}, finished ${report.finished_at}.`,
    '',
    `Machine: ${m.cores} cores (${m.cpu_model}), ${m.memory_gib} GiB memory, Node ${m.node}, PostgreSQL ${m.postgresql}.`,
    `Load average (1 min) at start ${m.load_average_at_start}, at end ${report.load_average_at_end}.`,
    report.runs > 1
      ? `Every figure is the median of ${report.runs} runs (per-run values in results.json); every ratio is the median of the per-run ratios.`
      : '**Single run**: every figure below comes from one run, not a median.',
    report.quick ? '**Quick mode**: reduced sizes and durations; not the figures of the issue.' : '',
    '',
    '## Goals',
    '',
    '| scenario | goal | ratio | bound | met |',
    '|---|---|---|---|---|',
  ];
  for (const s of report.scenarios) {
    for (const g of s.goals)
      lines.push(
        `| ${s.key} | ${g.name} | ${g.ratio} | ${g.kind === 'min' ? '≥' : '≤'} ${g.bound} | ${g.met ? 'yes' : '**no**'} |`,
      );
  }
  lines.push('');
  for (const s of report.scenarios) {
    lines.push(`## ${s.title}`, '', `Runs: ${s.runs}.`, '');
    if (s.error) lines.push('**Failed:**', '', '```', s.error.split('\n').slice(0, 8).join('\n'), '```', '');
    if (Object.keys(s.figures).length > 0) {
      lines.push('| figure | value | per run |', '|---|---|---|');
      for (const [k, v] of Object.entries(s.figures)) lines.push(`| ${k} | ${v} | ${s.perRun[k]!.join(', ')} |`);
      lines.push('');
    }
    if (s.checks.length > 0) {
      lines.push('| check | result | detail (last run, or a failing one) |', '|---|---|---|');
      for (const c of s.checks)
        lines.push(
          `| ${c.name} | ${c.failedRuns === 0 ? 'pass' : `**FAIL** (${c.failedRuns} run(s))`} | ${c.detail.replace(/\|/g, '\\|').slice(0, 300)} |`,
        );
      lines.push('');
    }
    for (const n of s.notes) lines.push(`- ${n}`);
    if (s.notes.length > 0) lines.push('');
  }
  return lines.filter((l, i, all) => !(l === '' && all[i - 1] === '')).join('\n') + '\n';
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
