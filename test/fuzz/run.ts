/**
 * One fuzz run: a fresh app and database (PGlite, or PostgreSQL with TEST_DATABASE_URL),
 * the fixtures, then `runs` generated requests spread over every operation (or those
 * matching `only`), each checked by runCase(). fast-check shrinks a failing request to
 * a minimal one; the result carries its report.
 */
import fc from 'fast-check';
import { createFuzzApp, seedFixtures } from './fixtures.ts';
import { createFuzzTarget, type FuzzTarget, runCase } from './harness.ts';
import { generationContext, requestsFor, type FuzzRequest, type Operation } from './requests.ts';

interface FuzzOptions {
  runs: number;
  seed: number;
  /** Only operations whose operationId equals, or whose path contains, this text. */
  only?: string;
  /** Called after every case with the number run so far. */
  onProgress?: (done: number) => void;
}

interface FuzzResult {
  failed: boolean;
  /** fast-check's report: seed, path, shrunk counterexample and the violation. */
  report: string;
  cases: number;
  operations: number;
  stats: FuzzTarget['stats'];
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const t = await createFuzzApp();
  try {
    const fixtures = await seedFixtures(t);
    const target = await createFuzzTarget(t, fixtures);
    const operations = target.operations.filter(
      (op) => options.only === undefined || op.operationId === options.only || op.path.includes(options.only),
    );
    if (operations.length === 0) throw new Error(`no operation matches ${options.only}`);
    const byId = new Map<string, Operation>(operations.map((op) => [op.operationId, op]));
    const ctx = generationContext(fixtures, t.clock.now());
    const credentials = {
      organizerKey: fixtures.org.key,
      readKey: fixtures.org.readKey,
      adminToken: fixtures.adminToken,
    };
    const requests = fc.oneof(...operations.map((op) => requestsFor(op, ctx, fixtures, credentials)));
    let cases = 0;
    const property = fc.asyncProperty(requests, async (request: FuzzRequest) => {
      cases++;
      options.onProgress?.(cases);
      await runCase(target, request, byId.get(request.operationId)!);
    });
    const details = await fc.check(property, { numRuns: options.runs, seed: options.seed, endOnFailure: false });
    return {
      failed: details.failed,
      report: details.failed
        ? `${fc.defaultReportMessage(details) ?? 'failed'}\n\nShrunk failing case:\n${(details.errorInstance as Error | undefined)?.message ?? String(details.errorInstance)}`
        : `${details.numRuns} cases passed (seed ${options.seed})`,
      cases: details.numRuns,
      operations: operations.length,
      stats: target.stats,
    };
  } finally {
    await t.close();
  }
}
