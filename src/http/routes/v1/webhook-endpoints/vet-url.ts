/**
 * The preHandler of the webhook endpoint routes that take a `url`: vets it (DNS included)
 * before the idempotency layer opens its request-scoped transaction, which is the last
 * preHandler (plugins/idempotency.ts), so no database connection waits on a resolver.
 * The handler passes the outcome to the domain, which answers a refusal with its 400 at
 * the same point as before (docs/operations.md, "No network I/O inside a transaction").
 */
import type { FastifyRequest } from 'fastify';
import { vetUrlForStorage, type VettedUrl } from '../../../../webhooks/endpoints.ts';

const vettedUrls = new WeakMap<FastifyRequest, VettedUrl>();

export async function vetBodyUrl(request: FastifyRequest): Promise<void> {
  const url = (request.body as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string') return;
  const { config, webhookResolver } = request.server.deps;
  vettedUrls.set(
    request,
    await vetUrlForStorage(url, {
      allowLoopback: config.webhookAllowLoopback,
      allowInsecureLoopback: config.webhookAllowInsecureLoopback,
      resolver: webhookResolver,
    }),
  );
}

/** The outcome vetBodyUrl() reached for this request (undefined when the body had no url). */
export function vettedUrlOf(request: FastifyRequest): VettedUrl | undefined {
  return vettedUrls.get(request);
}
