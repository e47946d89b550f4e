// Builds dist/embedded-template/: an empty embedded database, initialised once at build
// time so that a first start copies it instead of running initdb (docs/architecture.md,
// "Embedded database"). initdb takes seconds and hundreds of megabytes of WebAssembly
// memory; done here, in a process of its own, neither lands on the service.
//
// The template is made again only when the installed PGlite version changes: a data
// directory belongs to the PostgreSQL build that wrote it.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Where the template lives, relative to the project root. */
export const TEMPLATE_DIR = join('dist', 'embedded-template');
const VERSION_FILE = 'PGLITE_VERSION';

function installedPgliteVersion(root) {
  const manifest = join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined;
}

/** True when the template exists and was made by the installed PGlite. */
export function templateIsCurrent(root) {
  const file = join(root, TEMPLATE_DIR, VERSION_FILE);
  const installed = installedPgliteVersion(root);
  // Without PGlite (a production install on PostgreSQL only) there is nothing to make.
  if (installed === undefined) return true;
  return existsSync(file) && readFileSync(file, 'utf8').trim() === installed;
}

/** Initialises a fresh data directory and moves it into place; the old template goes. */
async function makeTemplate(root) {
  const target = join(root, TEMPLATE_DIR);
  const building = `${target}.building`;
  rmSync(building, { recursive: true, force: true });
  const require = createRequire(join(root, 'package.json'));
  const { PGlite } = await import(require.resolve('@electric-sql/pglite'));
  const pglite = await PGlite.create(building);
  await pglite.close();
  writeFileSync(join(building, VERSION_FILE), `${installedPgliteVersion(root)}\n`);
  rmSync(target, { recursive: true, force: true });
  renameSync(building, target);
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const root = process.argv[2] ?? process.cwd();
  if (!templateIsCurrent(root)) await makeTemplate(root);
}
