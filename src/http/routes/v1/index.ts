/**
 * The public /v1 API. Every route here is behind API key authentication; add a
 * resource by registering its routes plugin below.
 */
import type { FastifyPluginAsync } from 'fastify';
import { apiKeyAuth } from '../../plugins/api-key-auth.ts';

export const v1Routes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', apiKeyAuth);
};
