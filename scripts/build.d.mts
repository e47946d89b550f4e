/** True when dist/ is missing or older than a source file or the build settings. */
export function needsBuild(root?: string): boolean;
/** Compiles src/ to dist/ and stamps the build; returns the exit status. */
export function build(root?: string): number;
/** True when packages/console exists and dist/console is missing or older than its sources or the SDK's. */
export function consoleNeedsBuild(root?: string): boolean;
/** Builds the console with Vite into dist/console and stamps it; returns the exit status. */
export function buildConsole(root?: string): number;
