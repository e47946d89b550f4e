/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`): the top functions by self time.
 *   node --import tsx bench/lib/profile-summary.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export function summarize(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totals = new Map<string, number>();
  const byFile = new Map<string, number>();
  let all = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const f = node.callFrame;
    const where = f.url.replace(/^file:\/\/.*?\/(node_modules|src)\//, '$1/').replace(/^file:\/\//, '');
    const name = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
    totals.set(name, (totals.get(name) ?? 0) + us);
    const pkg =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where)?.[1] ??
      (where.startsWith('src/') ? 'src (Marquee)' : where === '' ? f.functionName : 'node internals');
    byFile.set(pkg, (byFile.get(pkg) ?? 0) + us);
    all += us;
  }
  const pct = (us: number) => ((100 * us) / all).toFixed(1).padStart(5) + '%';
  const lines = [`${file}: ${(all / 1e6).toFixed(2)} s sampled`, '', 'Top functions by self time:'];
  for (const [name, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(us)}  ${name}`);
  lines.push('', 'Self time by package:');
  for (const [name, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 15)) lines.push(`${pct(us)}  ${name}`);
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  console.log(summarize(process.argv[2]!, Number(process.argv[3] ?? 25)));
}
