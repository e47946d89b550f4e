/**
 * The process logger (docs/operations.md, "Logs"): pino JSON lines, one object per line,
 * which is what log collectors read; on a terminal (LOG_FORMAT=auto, the default, with
 * stdout a TTY) or with LOG_FORMAT=pretty, the same records as readable, coloured lines.
 * The pretty printer is loaded only when used.
 */
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';

/** Whether the logs (and the start banner) are for a person rather than a log collector. */
export function humanReadable(
  config: Pick<Config, 'logFormat'>,
  stdoutIsTerminal = process.stdout.isTTY === true,
): boolean {
  return config.logFormat === 'pretty' || (config.logFormat === 'auto' && stdoutIsTerminal);
}

export async function createLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  stdoutIsTerminal = process.stdout.isTTY === true,
): Promise<Logger> {
  if (!humanReadable(config, stdoutIsTerminal)) return pino({ level: config.logLevel });
  const { default: prettyStream } = await import('pino-pretty');
  return pino(
    { level: config.logLevel },
    prettyStream({ colorize: stdoutIsTerminal, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }),
  );
}
