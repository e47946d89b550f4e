/** A pino logger whose lines a test reads back, parsed. */
import pino, { type Logger } from 'pino';

interface CapturedLog {
  logger: Logger;
  lines: Array<Record<string, unknown>>;
  /** Lines with this message, and their level names. */
  withMessage(msg: string): Array<Record<string, unknown> & { levelName: string }>;
}

export function captureLog(level: pino.LevelWithSilent = 'debug'): CapturedLog {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return {
    logger,
    lines,
    withMessage: (msg) =>
      lines
        .filter((line) => line.msg === msg)
        .map((line) => ({ ...line, levelName: pino.levels.labels[line.level as number] ?? String(line.level) })),
  };
}
