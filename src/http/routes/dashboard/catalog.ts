import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const catalogRoutes: FastifyPluginAsyncTypebox = async () => {};
