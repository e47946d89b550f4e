import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const auditLogRoutes: FastifyPluginAsyncTypebox = async () => {};
