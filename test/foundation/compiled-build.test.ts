/**
 * The compiled build (README, "Two commands"; CONTRIBUTING.md): `npm ci` leaves dist/,
 * `npm start` runs it with plain Node and rebuilds first when a source is newer.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { build, needsBuild } from '../../scripts/build.mjs';
import { TEMPLATE_DIR, templateIsCurrent } from '../../scripts/embedded-template.mjs';
import { FROM_BUILD, launch, stop, waitUntilListening } from '../helpers/service-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the compiled build', () => {
  test('dist/main.js serves the API with plain Node: no TypeScript loader', async () => {
    if (needsBuild()) assert.equal(build(), 0, 'the build failed');
    const dataDir = mkdtempSync(join(tmpdir(), 'marquee-dist-'));
    const service = await waitUntilListening(launch({ DATA_DIR: dataDir, NODE_ENV: 'production' }, FROM_BUILD));
    try {
      const health = await fetch(`${service.baseUrl}/healthz`);
      assert.equal(health.status, 200);
      const ready = await fetch(`${service.baseUrl}/readyz`);
      assert.equal(ready.status, 200);
      // The mail render pool loads its compiled worker file too.
      assert.doesNotMatch(service.output(), /render-task\.ts|ERR_UNKNOWN_FILE_EXTENSION/);
    } finally {
      await stop(service);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('the build leaves an embedded database template made by the installed PGlite', () => {
    if (needsBuild()) assert.equal(build(), 0, 'the build failed');
    assert.equal(templateIsCurrent(ROOT), true);
    const template = join(ROOT, TEMPLATE_DIR);
    assert.match(readFileSync(join(template, 'PG_VERSION'), 'utf8'), /^\d+\n$/);
    const pgliteVersion = (
      JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    assert.equal(readFileSync(join(template, 'PGLITE_VERSION'), 'utf8'), `${pgliteVersion}\n`);
  });

  test('a build is needed when dist/ is missing or older than a source or the build settings', () => {
    const root = mkdtempSync(join(tmpdir(), 'marquee-stale-'));
    try {
      mkdirSync(join(root, 'src', 'db'), { recursive: true });
      writeFileSync(join(root, 'src', 'db', 'client.ts'), '');
      writeFileSync(join(root, 'tsconfig.json'), '{}');
      writeFileSync(join(root, 'tsconfig.build.json'), '{}');
      const at = (path: string, seconds: number) => utimesSync(join(root, path), seconds, seconds);
      for (const file of ['src/db/client.ts', 'tsconfig.json', 'tsconfig.build.json']) at(file, 1000);
      assert.equal(needsBuild(root), true, 'no dist/');

      mkdirSync(join(root, 'dist'));
      writeFileSync(join(root, 'dist', '.built'), '');
      at('dist/.built', 2000);
      assert.equal(needsBuild(root), false, 'built after every input');

      at('src/db/client.ts', 3000);
      assert.equal(needsBuild(root), true, 'a nested source is newer');
      at('src/db/client.ts', 1000);
      at('tsconfig.build.json', 3000);
      assert.equal(needsBuild(root), true, 'the build settings are newer');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
