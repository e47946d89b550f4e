/**
 * No module of src/ imports itself, directly or through others (CONTRIBUTING.md, "Where
 * things go": layers call only downward, and a module's types live where it does). A
 * cycle makes the order modules load in decide what a module sees of the others at load
 * time, and it joins modules that were meant to be understood one at a time.
 *
 * The graph is every .ts file under src/ and its relative imports as TypeScript itself reads
 * them (ts.preProcessFile): `import`, `import type` and `export … from` alike, since a
 * type imported from a module ties the two together as much as a value does. Packages and
 * data files (JSON) are not modules of src/. No database.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

type Graph = ReadonlyMap<string, readonly string[]>;

/** Every .ts file under src/ (not the .js that npm test compiles beside each), as an absolute path, sorted. */
function sourceFiles(): string[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The file a relative specifier names (`./x.ts`, or `./x.js` for its source), or undefined for a non-TypeScript file. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const target = resolve(dirname(from), specifier);
  return [target, target.replace(/\.js$/, '.ts')].find((path) => path.endsWith('.ts') && existsSync(path));
}

/** Each file and the files it imports. */
function importGraph(files: readonly string[]): Graph {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, false);
    const imports = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveSpecifier(file, fileName);
      if (target !== undefined) imports.add(target);
    }
    graph.set(file, [...imports].sort());
  }
  return graph;
}

/** The nodes of `allowed` that `start` reaches and that reach `start`: its strongly connected component there. */
function componentOf(graph: Graph, reverse: Graph, start: string, allowed: ReadonlySet<string>): Set<string> {
  const reach = (next: (node: string) => readonly string[]) => {
    const seen = new Set([start]);
    const queue = [start];
    for (let node = queue.pop(); node !== undefined; node = queue.pop()) {
      for (const neighbour of next(node)) {
        if (allowed.has(neighbour) && !seen.has(neighbour)) {
          seen.add(neighbour);
          queue.push(neighbour);
        }
      }
    }
    return seen;
  };
  const forward = reach((node) => graph.get(node) ?? []);
  const backward = reach((node) => reverse.get(node) ?? []);
  return new Set([...forward].filter((node) => backward.has(node)));
}

/**
 * Every elementary cycle (Johnson's algorithm), each starting at its first file in sorted
 * order, so the same cycle is always written the same way.
 */
function elementaryCycles(graph: Graph): string[][] {
  const nodes = [...graph.keys()].sort();
  const reverse = new Map<string, string[]>(nodes.map((node) => [node, []]));
  for (const [from, targets] of graph) for (const to of targets) reverse.get(to)?.push(from);
  const cycles: string[][] = [];
  nodes.forEach((start, i) => {
    // Cycles through an earlier node were all found from it.
    const component = componentOf(graph, reverse, start, new Set(nodes.slice(i)));
    const successors = (node: string) => (graph.get(node) ?? []).filter((next) => component.has(next));
    const blocked = new Set<string>();
    const blockedBy = new Map<string, Set<string>>();
    const path: string[] = [];
    const unblock = (node: string): void => {
      blocked.delete(node);
      const waiting = blockedBy.get(node) ?? new Set<string>();
      blockedBy.delete(node);
      for (const other of waiting) if (blocked.has(other)) unblock(other);
    };
    const circuit = (node: string): boolean => {
      let closed = false;
      path.push(node);
      blocked.add(node);
      for (const next of successors(node)) {
        if (next === start) {
          cycles.push([...path, start]);
          closed = true;
        } else if (!blocked.has(next) && circuit(next)) {
          closed = true;
        }
      }
      if (closed) unblock(node);
      else for (const next of successors(node)) blockedBy.set(next, (blockedBy.get(next) ?? new Set()).add(node));
      path.pop();
      return closed;
    };
    circuit(start);
  });
  return cycles;
}

function importCycles(): string[] {
  const graph = importGraph(sourceFiles());
  return elementaryCycles(graph).map((cycle) => cycle.map((file) => relative(ROOT, file)).join(' → '));
}

const listed = (cycles: readonly string[]) => cycles.map((cycle) => `\n  ${cycle}`).join('');

describe('imports in src/', () => {
  test('form no cycle', () => {
    const cycles = importCycles();
    assert.deepEqual(
      cycles,
      [],
      `import cycles:${listed(cycles)}\nMove the type or value both need to the module that owns it, or to a small module both import.`,
    );
  });
});
