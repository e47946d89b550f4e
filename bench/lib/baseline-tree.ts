/**
 * The code of an earlier commit, for a baseline measured in the same run: `git archive`
 * of the commit into a temporary directory, with this tree's node_modules linked in.
 * Nothing in the repository (branches, worktrees, index) is touched.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './marquee.ts';

export interface BaselineTree {
  root: string;
  commit: string;
  remove(): void;
}

export function checkoutBaseline(ref: string): BaselineTree {
  const commit = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  const root = mkdtempSync(join(tmpdir(), `marquee-baseline-${commit}-`));
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${root}"`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return { root, commit, remove: () => rmSync(root, { recursive: true, force: true }) };
}
