// `npm run sdk:check` (part of `npm run lint`): the SDK's generated types must be what
// openapi-typescript makes of the current OpenAPI document. Regenerates both into a
// temporary directory and compares; on a difference, says how to refresh them. Then
// type-checks the SDK on its own, without Node's types.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const COMMITTED = join(ROOT, 'packages', 'sdk', 'src', 'generated', 'openapi.ts');
const work = mkdtempSync(join(tmpdir(), 'marquee-sdk-check-'));

function run(args, stdout = 'ignore') {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', stdout, 'inherit'] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

try {
  const document = join(work, 'openapi.json');
  const types = join(work, 'openapi.ts');
  run(['--import', 'tsx', join(ROOT, 'scripts', 'openapi.ts'), document]);
  run([join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), document, '-o', types]);
  if (readFileSync(types, 'utf8') !== readFileSync(COMMITTED, 'utf8')) {
    console.error(
      'packages/sdk/src/generated/openapi.ts is stale: the OpenAPI document changed. Run `npm run sdk:generate` and commit it.',
    );
    process.exitCode = 1;
  } else {
    console.log('SDK types match the OpenAPI document.');
  }
  // The SDK alone, with the browser's and ES2022's types and no Node types
  // (packages/sdk/tsconfig.json): a Node-only API in it does not compile.
  run(
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'packages', 'sdk'), '--noEmit'],
    'inherit',
  );
  console.log('The SDK compiles with Web types only.');
} finally {
  rmSync(work, { recursive: true, force: true });
}
