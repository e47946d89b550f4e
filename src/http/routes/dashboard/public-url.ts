/**
 * The origin of links people are sent (docs/dashboard.md, "Settings"): PUBLIC_URL, never
 * the request's Host header, which whoever asks for a password reset could choose.
 */
import type { FastifyRequest } from 'fastify';

export function publicUrlOf(request: FastifyRequest): string {
  return request.server.deps.config.publicUrl;
}
