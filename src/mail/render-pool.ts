/**
 * Mail rendering off the calling thread (docs/orders.md, "E-mail"). QR codes, templates
 * and MIME composition are synchronous CPU work, a 1,000-ticket e-ticket mail a lot of it;
 * on the thread that serves the API (ROLE=all) that work would hold every request back.
 * The e-mail job hands each mail to a small pool of worker threads (piscina) and only does
 * I/O itself: the database, then sending the bytes that come back.
 *
 * The pool is small on purpose (MAIL_RENDER_THREADS, default 1): the threads compete
 * for the same cores as the API and the database, and one thread renders mails faster
 * than an SMTP server takes them. Its threads run below normal priority
 * (./render-task.ts), so where they share cores with requests, requests go first.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { HELPER_THREAD_LIMITS } from '../lib/thread-heap.ts';
import type { RenderedMail, RenderRequest, RenderTask } from './render-task.ts';

export interface MailRenderer {
  render(request: RenderRequest): Promise<RenderedMail>;
  /** Waits for the tasks in hand, then ends the threads. */
  close(): Promise<void>;
}

interface RenderPoolOptions {
  /** The From header of every mail. */
  from: string;
  threads: number;
  /** An idle thread ends after this long and is started again on demand. */
  idleTimeoutMs?: number;
  /**
   * A thread that failed outside any task (it could not start, or died while idle). A
   * task in hand when its thread fails rejects instead, and the job queue retries it.
   */
  onError?: (err: unknown) => void;
}

export function createRenderPool(opts: RenderPoolOptions): MailRenderer {
  // Worker threads inherit the process's execArgv, so under `--import tsx` (development,
  // tests, `npm start`) they load this TypeScript file as the main thread does.
  const pool = new Piscina<RenderTask, SerializedMail>({
    filename: new URL(`./render-task${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href,
    minThreads: 0,
    maxThreads: opts.threads,
    idleTimeout: opts.idleTimeoutMs ?? 30_000,
    resourceLimits: HELPER_THREAD_LIMITS,
  });
  // Without a listener such an error would be thrown as an uncaught exception.
  pool.on('error', (err: unknown) => opts.onError?.(err));
  return {
    async render(request) {
      const mail = await pool.run({ from: opts.from, request });
      // A Buffer crosses threads as a plain Uint8Array; wrap it again without copying.
      return { ...mail, raw: Buffer.from(mail.raw.buffer, mail.raw.byteOffset, mail.raw.byteLength) };
    },
    async close() {
      await pool.close();
    },
  };
}

type SerializedMail = Omit<RenderedMail, 'raw'> & { raw: Uint8Array };
