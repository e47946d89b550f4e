/**
 * The service as an operator runs it: `node --import tsx src/main.ts` in a child process,
 * on port 0, with only the environment a test passes (plus PATH), for tests that stop,
 * kill (SIGKILL) and restart the real process. Every child still running when the test
 * file ends is killed, so a failed assertion never leaves a server behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface ServiceProcess {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr interleaved, as received. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exit: Promise<number | null>;
  /** performance.now() when the process exited, once it has. */
  exitedAt(): number | undefined;
  /** performance.now() when the "listening at" line arrived, once it has. */
  listenedAt(): number | undefined;
  /** Resolves when the output matches (with the match); rejects after timeoutMs or at exit. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGKILL, as a crash or the OOM killer would: no shutdown code runs. Resolves with the signal's name. */
  kill(): Promise<string | null>;
}

export interface RunningService extends ServiceProcess {
  baseUrl: string;
}

const LISTENING = /listening at (http:\/\/[^/\s]+)\/v1/;

const children = new Set<ChildProcess>();
// A failed assertion must not leave a server running and the test process hanging.
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

export const FROM_BUILD = ['dist/main.js'];
/**
 * The sources as `npm test` compiled them in place before any test ran (scripts/test.mjs):
 * plain Node, no loader, so a start costs a fraction of the CPU of tsx's, and never
 * stale, unlike dist/. Only for tests run through `npm test`.
 */
export const FROM_COMPILED_SOURCES = ['src/main.js'];
/**
 * How the service starts by default: from the sources, compiled in place when this helper
 * itself runs compiled (under `npm test`, every source was compiled with it), else
 * through tsx.
 */
export const FROM_SOURCES = import.meta.url.endsWith('.js')
  ? FROM_COMPILED_SOURCES
  : ['--import', 'tsx', 'src/main.ts'];

/** Spawns the service without waiting for anything. */
export function launch(env: Record<string, string>, args: string[] = FROM_SOURCES): ServiceProcess {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // No balancer watches these processes: no drain period before a SIGTERM'd one stops,
    // unless the test sets one (docs/deploy.md, "Rolling restarts behind a load balancer").
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_PERIOD: '0s', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  let stdout = '';
  let stderr = '';
  let exitedAt: number | undefined;
  let listenedAt: number | undefined;
  const listeners = new Set<() => void>();
  const received = (chunk: Buffer) => {
    output += chunk.toString();
    if (listenedAt === undefined && LISTENING.test(output)) listenedAt = performance.now();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    received(chunk);
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    received(chunk);
    stderr += chunk.toString();
  });
  // 'close', not 'exit': it comes after the last output has been read.
  let signal: string | null = null;
  const exit = new Promise<number | null>((resolve) =>
    child.on('close', (code, killedBy) => {
      exitedAt = performance.now();
      signal = killedBy;
      children.delete(child);
      resolve(code);
    }),
  );
  const waitForOutput = (pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      const check = () => {
        const match = pattern.exec(output);
        if (!match) return;
        done();
        resolve(match);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${pattern} in the output within ${timeoutMs} ms:\n${output}`));
      }, timeoutMs);
      listeners.add(check);
      void exit.then((code) => {
        if (!listeners.has(check)) return;
        done();
        reject(new Error(`exited (${code}) before ${pattern} appeared:\n${output}`));
      });
      check();
    });
  return {
    child,
    pid: child.pid!,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    exit,
    exitedAt: () => exitedAt,
    listenedAt: () => listenedAt,
    waitForOutput,
    async kill() {
      child.kill('SIGKILL');
      await exit;
      return signal;
    },
  };
}

/**
 * Resolves once the service prints "listening at"; rejects if it exits first. The bound is
 * generous: a start compiles the TypeScript sources, which takes long on a busy machine.
 */
export async function waitUntilListening(service: ServiceProcess, timeoutMs = 60_000): Promise<RunningService> {
  const match = await service.waitForOutput(LISTENING, timeoutMs);
  return { ...service, baseUrl: match[1]! };
}

export function start(env: Record<string, string>, timeoutMs?: number): Promise<RunningService> {
  return waitUntilListening(launch(env), timeoutMs);
}

export async function stop(service: ServiceProcess): Promise<number | null> {
  service.child.kill('SIGTERM');
  return service.exit;
}

/** Runs the service until it exits by itself (a failed start). */
export async function runToExit(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const service = launch(env);
  const timer = setTimeout(() => service.child.kill('SIGKILL'), timeoutMs);
  const code = await service.exit;
  clearTimeout(timer);
  return { code, stdout: service.stdout(), stderr: service.stderr() };
}
