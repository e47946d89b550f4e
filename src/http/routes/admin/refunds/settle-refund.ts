import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { settleRefund } from '../../../../domain/orders/operations.ts';
import { errorResponses, IdParams } from '../../../schemas/common.ts';
import { Refund, SettleRefund } from '../../../schemas/orders.ts';
import { presentRefund } from '../../../presenters/orders.ts';

export const settleRefundRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/refunds/:id/settle',
    {
      config: { resource: 'Refund' },
      schema: {
        tags: ['admin'],
        operationId: 'adminSettleRefund',
        summary: 'Record the gateway outcome of a pending card refund',
        params: IdParams,
        body: SettleRefund,
        response: { 200: Refund, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) =>
      presentRefund(await settleRefund(request.db, request.params.id, request.body.status, app.deps.clock.now())),
  );
};
