/**
 * Every path of the repository a document or a code comment names exists (CONTRIBUTING.md,
 * "Where things go": the docs say where things are, so a move that leaves a doc or a
 * comment behind fails here). The documents are the README, CONTRIBUTING, everything
 * under docs/, and the READMEs beside the code; the sources are the TypeScript and
 * scripts under src/, test/, bench/ and scripts/. The paths are those under src/, test/,
 * bench/, scripts/ and migrations/. A placeholder (`src/domain/<area>/`,
 * `migrations/NNNN_name.sql`) or a pattern (`bench/results.*.md`) names no one path and
 * is skipped; a prefix of file names (`bench/results`) exists when a file starts with it.
 * No database.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A repository path: a top folder, then path characters, ending on a name or a slash. */
const PATH = /(?<![\w/.@-])((?:src|test|bench|scripts|migrations)\/[\w./-]*[\w/])/g;

/** The files under `folder` whose names end with one of `endings` (not the .js that npm test compiles beside each .ts). */
function filesUnder(folder: string, endings: readonly string[]): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && endings.some((ending) => entry.name.endsWith(ending)))
    .filter((entry) => !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

function documents(): string[] {
  return [
    'README.md',
    'CONTRIBUTING.md',
    ...filesUnder('docs', ['.md']),
    ...filesUnder('src', ['.md']),
    'bench/README.md',
  ];
}

function sources(): string[] {
  return ['src', 'test', 'bench', 'scripts'].flatMap((folder) => filesUnder(folder, ['.ts', '.tsx', '.mjs']));
}

/** The paths a document names, with the line each is on. */
function namedPaths(document: string): { path: string; line: number }[] {
  const named: { path: string; line: number }[] = [];
  readFileSync(join(ROOT, document), 'utf8')
    .split('\n')
    .forEach((text, index) => {
      for (const match of text.matchAll(PATH)) {
        const path = match[1]!;
        const next = text.slice(match.index + path.length);
        const placeholder = /[<{*]|NNNN/.test(path) || /^\.?[<{*]/.test(next);
        if (!placeholder) named.push({ path, line: index + 1 });
      }
    });
  return named;
}

/** A path exists, or names files by their prefix (`bench/results` for bench/results.deploy.md). */
function exists(path: string): boolean {
  if (existsSync(join(ROOT, path))) return true;
  const folder = join(ROOT, dirname(path));
  return existsSync(folder) && readdirSync(folder).some((name) => name.startsWith(`${basename(path)}.`));
}

/** `file:line names path` for every path the files name that does not exist. */
function missingPaths(files: string[]): string[] {
  return files.flatMap((file) =>
    namedPaths(file)
      .filter(({ path }) => !exists(path))
      .map(({ path, line }) => `${file}:${line} names ${path}`),
  );
}

describe('paths named by the documents', () => {
  test('every one a document names exists', () => {
    assert.deepEqual(missingPaths(documents()), []);
  });

  test('every one a source names exists', () => {
    assert.deepEqual(missingPaths(sources()), []);
  });

  test('the scan finds the paths it should (a guard against a pattern that matches nothing)', () => {
    const named = namedPaths('CONTRIBUTING.md').map(({ path }) => path);
    assert.ok(named.includes('src/db/repositories/'), named.join(', '));
    assert.ok(named.length >= 10, named.join(', '));
  });
});
