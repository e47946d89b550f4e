import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createOrder } from '../../../../domain/orders/create-order.ts';
import { tenantOf } from '../../../context.ts';
import { errorResponses } from '../../../schemas/common.ts';
import { CreateOrder, OrderDetail } from '../../../schemas/orders.ts';
import { presentOrderDetail } from '../../../presenters/orders.ts';

export const createOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders',
    {
      schema: {
        tags: ['orders'],
        operationId: 'createOrder',
        summary: 'Record a box-office sale',
        description:
          'A one-shot offline sale: availability is rechecked and taken atomically; the 201 carries the tickets (items) and registration answers.',
        body: CreateOrder,
        response: { 201: OrderDetail, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const sale = await createOrder(request.db, tenantOf(request).organizerId, request.body, app.deps.clock.now());
      return reply.code(201).send(presentOrderDetail(sale));
    },
  );
};
