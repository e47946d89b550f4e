// The console's dashboard client types (packages/console/src/generated/dashboard.ts) are what
// openapi-typescript makes of the dashboard's OpenAPI document (docs/dashboard.md; served at
// /dashboard/v1/openapi.json), formatted by Prettier like the rest of the console.
//
//   node scripts/check-dashboard-types.mjs           compare: exit 1 when the committed file is stale
//   node scripts/check-dashboard-types.mjs --write   regenerate it (`npm run dashboard:generate
//                                                    --workspace @marquee/console`)
//
// The document is written by scripts/openapi.ts (its second path) into a temporary
// directory, as `npm run sdk:check` does for the SDK's types.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const COMMITTED = join(ROOT, 'packages', 'console', 'src', 'generated', 'dashboard.ts');
const write = process.argv.includes('--write');
const work = mkdtempSync(join(tmpdir(), 'marquee-dashboard-check-'));

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

try {
  const document = join(work, 'dashboard-openapi.json');
  const types = join(work, 'dashboard.ts');
  run(['--import', 'tsx', join(ROOT, 'scripts', 'openapi.ts'), join(work, 'openapi.json'), document]);
  run([join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), document, '-o', types]);
  const options = (await prettier.resolveConfig(COMMITTED)) ?? {};
  const generated = await prettier.format(readFileSync(types, 'utf8'), { ...options, filepath: COMMITTED });
  if (write) {
    writeFileSync(COMMITTED, generated);
    console.log('wrote packages/console/src/generated/dashboard.ts');
  } else if (generated !== readFileSync(COMMITTED, 'utf8')) {
    console.error(
      'packages/console/src/generated/dashboard.ts is stale: the dashboard OpenAPI document changed. Run `npm run dashboard:generate --workspace @marquee/console` and commit it.',
    );
    process.exitCode = 1;
  } else {
    console.log("The console's dashboard types match the dashboard OpenAPI document.");
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
