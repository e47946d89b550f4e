import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const organizerRoutes: FastifyPluginAsyncTypebox = async () => {};
