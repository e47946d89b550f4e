/**
 * The service as an operator runs it: `node --import tsx src/main.ts` in a child process,
 * on port 0, with only the environment a test passes (plus PATH).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServiceProcess {
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

/** Spawns the service without waiting for anything. */
export function launch(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  let stdout = '';
  let stderr = '';
  let exitedAt: number | undefined;
  let listenedAt: number | undefined;
  const received = (chunk: Buffer) => {
    output += chunk.toString();
    if (listenedAt === undefined && LISTENING.test(output)) listenedAt = performance.now();
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    received(chunk);
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    received(chunk);
    stderr += chunk.toString();
  });
  // 'close', not 'exit': it comes after the last output has been read.
  const exit = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      exitedAt = performance.now();
      children.delete(child);
      resolve(code);
    }),
  );
  return { child, pid: child.pid!, output: () => output, stdout: () => stdout, stderr: () => stderr, exit, exitedAt: () => exitedAt, listenedAt: () => listenedAt };
}

/** Resolves once the service prints "listening at"; rejects if it exits first. */
export function waitUntilListening(service: ServiceProcess, timeoutMs = 40_000): Promise<RunningService> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${service.output()}`)), timeoutMs);
    const check = () => {
      const match = LISTENING.exec(service.output());
      if (!match) return;
      clearTimeout(timer);
      service.child.stdout!.off('data', check);
      service.child.stderr!.off('data', check);
      resolve({ ...service, baseUrl: match[1]! });
    };
    // Registered after launch()'s own listeners, so output() already holds the chunk.
    service.child.stdout!.on('data', check);
    service.child.stderr!.on('data', check);
    check();
    void service.exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${service.output()}`));
    });
  });
}

export function start(env: Record<string, string>): Promise<RunningService> {
  return waitUntilListening(launch(env));
}

export async function stop(service: ServiceProcess): Promise<number | null> {
  service.child.kill('SIGTERM');
  return service.exit;
}

/** Runs the service until it exits by itself (a failed start). */
export async function runToExit(env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const service = launch(env);
  const timer = setTimeout(() => service.child.kill('SIGKILL'), timeoutMs);
  const code = await service.exit;
  clearTimeout(timer);
  return { code, stdout: service.stdout(), stderr: service.stderr() };
}
