import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const reportRoutes: FastifyPluginAsyncTypebox = async () => {};
