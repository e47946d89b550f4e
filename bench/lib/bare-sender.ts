/**
 * The webhook baseline: a bare undici loop in its own process sending the same signed
 * Standard Webhooks requests the worker sends (signed per attempt with Marquee's own
 * signWebhook), at a fixed concurrency, to the same receiver.
 * argv: <jobs.json: {ca, concurrency, jobs: [{url, secret, id, body}]}>. Prints "done <ms>".
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { signWebhook } from '../../src/domain/webhooks/signature.ts';

interface Job {
  url: string;
  secret: string;
  id: string;
  body: string;
}

const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { ca: string; concurrency: number; jobs: Job[] };
const agent = new Agent({ connect: { ca: input.ca } });
let next = 0;
let failed = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: input.concurrency }, async () => {
    while (next < input.jobs.length) {
      const job = input.jobs[next++]!;
      const timestamp = Math.floor(Date.now() / 1000);
      const res = await request(job.url, {
        dispatcher: agent,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': job.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(job.secret, job.id, timestamp, job.body),
        },
        body: job.body,
      });
      await res.body.dump();
      if (res.statusCode !== 200) failed++;
    }
  }),
);
process.stdout.write(`done ${(performance.now() - started).toFixed(1)} failed ${failed}\n`);
await agent.close();
