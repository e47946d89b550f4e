/**
 * The webhook baseline: a bare undici loop in its own process sending the same signed
 * Standard Webhooks requests the worker sends (signed per attempt with Marquee's own
 * signWebhook), at a fixed concurrency, to the same receiver.
 * argv: <jobs.json: {ca, concurrency, warmup?: Job[], jobs: Job[]}> with Job = {url, secret, id, body}.
 * Sends `warmup` first (untimed, same agent and connections), then times `jobs`.
 * Prints "done <ms> failed <n>" for the timed jobs.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { signWebhook } from '../../src/webhooks/signature.ts';

interface Job {
  url: string;
  secret: string;
  id: string;
  body: string;
}

const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as {
  ca: string;
  concurrency: number;
  api?: 'request' | 'dispatch';
  warmup?: Job[];
  jobs: Job[];
};
const agent = new Agent({ connect: { ca: input.ca } });
let failed = 0;

function headersOf(job: Job): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': job.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(job.secret, job.id, timestamp, job.body),
  };
}

/** undici's request(): the response body as a stream, drained. */
async function sendWithRequest(job: Job): Promise<number> {
  const res = await request(job.url, { dispatcher: agent, method: 'POST', headers: headersOf(job), body: job.body });
  await res.body.dump();
  return res.statusCode;
}

/** undici's dispatcher API with a handler that only keeps the status (what Marquee's sender uses). */
function sendWithDispatch(job: Job): Promise<number> {
  const url = new URL(job.url);
  return new Promise((resolve, reject) => {
    let status = 0;
    agent.dispatch(
      { origin: url.origin, path: url.pathname, method: 'POST', headers: headersOf(job), body: job.body },
      {
        onRequestStart: () => {}, // marks the handler as one of undici 7's controller-style handlers
        onResponseStart: (_c, statusCode) => void (status = statusCode),
        onResponseEnd: () => resolve(status),
        onResponseError: (_c, err) => reject(err),
      },
    );
  });
}

const send = input.api === 'dispatch' ? sendWithDispatch : sendWithRequest;

async function run(jobs: Job[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      while (next < jobs.length) {
        if ((await send(jobs[next++]!)) !== 200) failed++;
      }
    }),
  );
}

await run(input.warmup ?? []);
failed = 0;
const started = performance.now();
const cpuBefore = process.cpuUsage();
await run(input.jobs);
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(
  `done ${(performance.now() - started).toFixed(1)} failed ${failed} cpu_ms ${((cpu.user + cpu.system) / 1000).toFixed(1)}\n`,
);
await agent.close();
