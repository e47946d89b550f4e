/**
 * The service as an operator runs it, in a child process: `node --import tsx src/main.ts`
 * with the given environment, on 127.0.0.1 and a free port. For tests that stop, kill
 * (SIGKILL) and restart the real process. Every child still running when the test file
 * ends is killed, so a failed assertion never leaves a server behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  /** Resolves with the exit code, or the signal's name when killed by one. */
  exit: Promise<number | string | null>;
  /** Resolves when the output matches (returns the match); rejects after timeoutMs or at exit. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGKILL, as a crash or the OOM killer would: no shutdown code runs. Resolves at exit. */
  kill(): Promise<number | string | null>;
}

const children = new Set<ChildProcess>();
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

export async function startService(env: Record<string, string>, startTimeoutMs = 60_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve(code ?? signal);
    }),
  );

  const waitForOutput = (pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
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
      const done = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      void exit.then((code) => {
        if (!listeners.has(check)) return;
        done();
        reject(new Error(`exited (${code}) before ${pattern} appeared:\n${output}`));
      });
      check();
    });

  const listening = await waitForOutput(/listening at (http:\/\/[^/\s]+)\/v1/, startTimeoutMs);
  return {
    child,
    output: () => output,
    baseUrl: listening[1]!,
    exit,
    waitForOutput,
    async kill() {
      child.kill('SIGKILL');
      return exit;
    },
  };
}
