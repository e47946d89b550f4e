/**
 * The dashboard's own operations on the organizer's resources (docs/dashboard.md, "Box
 * office and catalog operations"): the webhook test button, publishing a draft, settling,
 * refunding and cancelling an order, transferring a ticket. The admin API's domain functions, scoped to the session's organizer:
 * another organizer's resource is not found.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { publishEvent } from '../../../domain/catalog/change-event.ts';
import { cancelOrder, refundOrder, settleOrder } from '../../../domain/orders/operations.ts';
import { transfer } from '../../../domain/tickets/tickets.ts';
import { sendTestPing } from '../../../webhooks/deliveries.ts';
import { errorResponses, IdParams, success } from '../../schemas/common.ts';
import { EventDetail } from '../../schemas/events.ts';
import { OrderDetail, Refund, RefundOrder, SettleOrder } from '../../schemas/orders.ts';
import { Ticket, TransferTicket } from '../../schemas/tickets.ts';
import { WebhookDelivery } from '../../schemas/webhooks.ts';
import { presentEventDetail } from '../../presenters/events.ts';
import { presentOrderDetail, presentRefund } from '../../presenters/orders.ts';
import { presentTicket } from '../../presenters/tickets.ts';
import { presentDelivery } from '../../presenters/webhooks.ts';
import { sessionOf } from './session.ts';
import { bodyOptional } from '../../json-body.ts';

const testWebhookEndpointRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/webhook_endpoints/:id/test',
    {
      config: { resource: 'Webhook endpoint' },
      schema: {
        tags: ['webhooks'],
        operationId: 'testWebhookEndpoint',
        summary: 'The test button: one test.ping to this endpoint, even when it is disabled',
        description:
          'Queues one `test.ping` (its `data` is `{message, endpoint_id}`) to this endpoint only, even when it is disabled, and returns its delivery.',
        params: IdParams,
        response: { 201: success(WebhookDelivery), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const row = await sendTestPing(
        request.db,
        request.params.id,
        app.deps.clock.now(),
        sessionOf(request).organizerId,
      );
      return reply.code(201).send(presentDelivery(row));
    },
  );
};

const publishEventRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events/:id/publish',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['events'],
        operationId: 'publishEvent',
        summary: 'Publish a draft: its performances go live, one event.published each',
        description:
          'Each draft performance goes live and emits one `event.published`. A published event answers 409 `invalid_state` and nothing changes.',
        params: IdParams,
        response: { 200: success(EventDetail), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) =>
      presentEventDetail(
        await publishEvent(request.db, request.params.id, app.deps.clock.now(), sessionOf(request).organizerId),
      ),
  );
};

const settleOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders/:id/settle',
    {
      // The body is optional: no body means every default.
      preValidation: bodyOptional,
      config: { resource: 'Order' },
      schema: {
        tags: ['orders'],
        operationId: 'settleOrder',
        summary: 'Settle a pay-later order: unpaid → placed, order.paid',
        description:
          'Records the payment of an unpaid order under its row lock: it becomes placed and emits `order.paid` once. A second settle (a double click, a retry without the Idempotency-Key) answers 409 `invalid_state`.',
        params: IdParams,
        body: SettleOrder,
        response: { 200: success(OrderDetail), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      presentOrderDetail(
        await settleOrder(
          request.db,
          request.params.id,
          request.body?.tender ?? 'cash',
          app.deps.clock.now(),
          sessionOf(request).organizerId,
        ),
      ),
  );
};

const refundOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders/:id/refund',
    {
      // The body is optional: no body means every default.
      preValidation: bodyOptional,
      config: { resource: 'Order' },
      schema: {
        tags: ['orders'],
        operationId: 'refundOrder',
        summary: 'Refund all or chosen tickets of an order',
        description:
          'Refunds the given tickets (every purchased ticket by default); their seats return to sale and `order.refunded` carries `refunded_items` and `total_refunded_minor`.',
        params: IdParams,
        body: RefundOrder,
        response: { 201: success(Refund), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const refund = await refundOrder(
        request.db,
        request.params.id,
        { ticket_ids: body.ticket_ids, mode: body.mode ?? 'cash' },
        app.deps.clock.now(),
        sessionOf(request).organizerId,
      );
      return reply.code(201).send(presentRefund(refund));
    },
  );
};

const cancelOrderRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders/:id/cancel',
    {
      config: { resource: 'Order' },
      schema: {
        tags: ['orders'],
        operationId: 'cancelOrder',
        summary: 'Cancel an order: its tickets are cancelled and their seats return',
        description: 'Cancels the order and its purchased tickets; their seats return to sale.',
        params: IdParams,
        response: { 200: success(OrderDetail), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) =>
      presentOrderDetail(
        await cancelOrder(request.db, request.params.id, app.deps.clock.now(), sessionOf(request).organizerId),
      ),
  );
};

const transferTicketRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tickets/:id/transfer',
    {
      config: { resource: 'Ticket' },
      schema: {
        tags: ['tickets'],
        operationId: 'transferTicket',
        summary: 'Give a purchased ticket a new holder',
        description: 'The ticket keeps its serial number; the new holder is the one admitted at the door.',
        params: IdParams,
        body: TransferTicket,
        response: { 200: success(Ticket), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      presentTicket(
        await transfer(
          request.db,
          request.params.id,
          request.body,
          app.deps.clock.now(),
          sessionOf(request).organizerId,
        ),
      ),
  );
};

/** The routes of the dashboard's own operations. */
export const operationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of [
    testWebhookEndpointRoute,
    publishEventRoute,
    settleOrderRoute,
    refundOrderRoute,
    cancelOrderRoute,
    transferTicketRoute,
  ])
    await app.register(route);
};
