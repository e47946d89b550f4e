/**
 * A MailRenderer that renders in the calling thread, for tests of the e-mail job whose
 * subject is not where rendering runs (the worker always uses the thread pool).
 */
import type { MailRenderer } from '../../src/mail/render-pool.ts';
import renderAndCompose from '../../src/mail/render-task.ts';

export function inThreadRenderer(from: string): MailRenderer {
  return {
    render: (request) => renderAndCompose({ from, request }),
    async close() {},
  };
}
