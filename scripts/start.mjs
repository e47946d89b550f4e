// `npm start`: runs the compiled service (dist/) with plain Node, building it (and the
// console, dist/console) first when it is missing or older than a source file, so an edit
// or a pull never runs stale code.
// `npm run dev` is the watch mode (tsx).
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, buildConsole, consoleNeedsBuild, needsBuild } from './build.mjs';

if (needsBuild()) {
  console.error('Building dist/ (a source file is newer than the last build)…');
  const status = build();
  if (status !== 0) process.exit(status);
}
if (consoleNeedsBuild()) {
  console.error('Building dist/console/ (a console source is newer than the last build)…');
  const status = buildConsole();
  if (status !== 0) process.exit(status);
}
await import(pathToFileURL(join(fileURLToPath(new URL('..', import.meta.url)), 'dist', 'main.js')).href);
