/**
 * Scraping the metrics listener (docs/operations.md, "Metrics") in tests: one GET of
 * /metrics, its Prometheus text format read into samples by name and labels.
 */
import assert from 'node:assert/strict';

export interface Scrape {
  text: string;
  /** The sample's value; 0 when the series is absent (a labelled counter not yet counted). */
  value(name: string, labels?: Record<string, string>): number;
  /** Whether the series is present. */
  has(name: string, labels?: Record<string, string>): boolean;
  /** The label sets of a metric's series. */
  series(name: string): Record<string, string>[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

const keyOf = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',')}}`;

function parseMetrics(text: string): Scrape {
  const samples = new Map<string, number>();
  const byName = new Map<string, Record<string, string>[]>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (match[2] ?? '').matchAll(LABEL)) labels[k!] = v!;
    samples.set(keyOf(match[1]!, labels), Number(match[3]));
    byName.set(match[1]!, [...(byName.get(match[1]!) ?? []), labels]);
  }
  return {
    text,
    value: (name, labels = {}) => samples.get(keyOf(name, labels)) ?? 0,
    has: (name, labels = {}) => samples.has(keyOf(name, labels)),
    series: (name) => byName.get(name) ?? [],
  };
}

export async function scrape(port: number, path = '/metrics'): Promise<Scrape> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parseMetrics(await res.text());
}
