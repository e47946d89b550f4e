/** True when dist/ is missing or older than a source file or the build settings. */
export function needsBuild(root?: string): boolean;
/** Compiles src/ to dist/ and stamps the build; returns the exit status. */
export function build(root?: string): number;
