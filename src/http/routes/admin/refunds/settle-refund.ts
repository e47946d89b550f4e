import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { settleRefund } from '../../../../domain/orders/operations.ts';
import { errorResponses, IdParams, success } from '../../../schemas/common.ts';
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
        description:
          'Records whether a pending card refund settled or failed, and emits the settlement’s `order.refunded`.',
        params: IdParams,
        body: SettleRefund,
        response: { 200: success(Refund), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      presentRefund(await settleRefund(request.db, request.params.id, request.body.status, app.deps.clock.now())),
  );
};
