/** A helper child process (bare server, bare sender) run with tsx, ready on a stdout line. */
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from './marquee.ts';

interface Helper {
  child: ChildProcess;
  match: RegExpExecArray;
  output(): string;
  done: Promise<number | null>;
  stop(): Promise<void>;
}

interface HelperOptions {
  env?: Record<string, string>;
  /** A command the helper runs under (a profiler such as valgrind), with its arguments. */
  wrapper?: string[];
  /** Node flags before the script's. */
  nodeFlags?: string[];
  /** How long the helper may take to print its ready line; default 30 s. */
  readyTimeoutMs?: number;
}

export async function startHelper(
  script: string,
  args: string[],
  ready: RegExp,
  { env = {}, wrapper = [], nodeFlags = [], readyTimeoutMs = 30_000 }: HelperOptions = {},
): Promise<Helper> {
  const command = [...wrapper, process.execPath, ...nodeFlags, '--import', 'tsx', script, ...args];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${script} not ready in ${readyTimeoutMs / 1000} s: ${output}`)),
      readyTimeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const m = ready.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    void done.then((code) => reject(new Error(`${script} exited (${code}): ${output}`)));
  });
  return {
    child,
    match,
    output: () => output,
    done,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await done;
    },
  };
}
