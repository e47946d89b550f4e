/** Admin API authentication: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { bearerToken } from './api-key-auth.ts';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export async function adminAuth(request: FastifyRequest): Promise<void> {
  const token = bearerToken(request);
  // Comparing digests keeps the comparison constant-time whatever the token's length.
  if (token === undefined || !timingSafeEqual(digest(token), digest(request.server.deps.adminToken))) {
    throw new ApiError(
      'unauthorized',
      'A valid admin token is required: send it as "Authorization: Bearer <ADMIN_TOKEN>".',
      {
        'www-authenticate': 'Bearer realm="marquee-admin"',
      },
    );
  }
}
