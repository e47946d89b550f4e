/**
 * The dashboard's catalog and box-office operations (docs/dashboard.md, "Box office and
 * catalog operations"): adding performances and ticket types to an event, registration
 * questions, holds, resending an order's e-tickets and settling a card refund. Each calls
 * the domain function the admin API calls (where it has one), scoped to the session's
 * organizer: another organizer's resource is not found.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { addPerformances, addTicketTypes } from '../../../domain/catalog/add-to-event.ts';
import { createHold, listHolds, releaseHold } from '../../../domain/catalog/holds.ts';
import { settleRefund } from '../../../domain/orders/operations.ts';
import { resendTickets } from '../../../domain/orders/resend-tickets.ts';
import { createQuestion, patchQuestion } from '../../../domain/questions/questions.ts';
import { errorResponses, IdParams, ListOf, PAGE_LIMIT_DEFAULT, success } from '../../schemas/common.ts';
import {
  AddPerformances,
  AddTicketTypes,
  ListHoldsQuery,
  QueuedEmail,
  ResendTickets,
} from '../../schemas/box-office.ts';
import { EventDetail } from '../../schemas/events.ts';
import { CreateHold, Hold } from '../../schemas/holds.ts';
import { Refund, SettleRefund } from '../../schemas/orders.ts';
import { CreateQuestion, RegistrationQuestion, UpdateQuestion } from '../../schemas/questions.ts';
import { presentQueuedEmail } from '../../presenters/emails.ts';
import { presentEventDetail } from '../../presenters/events.ts';
import { presentHold } from '../../presenters/holds.ts';
import { presentList } from '../../presenters/list.ts';
import { presentRefund } from '../../presenters/orders.ts';
import { presentQuestion } from '../../presenters/questions.ts';
import { bodyOptional } from '../../json-body.ts';
import { sessionOf } from './session.ts';

const addPerformancesRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events/:id/performances',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['events'],
        operationId: 'addPerformances',
        summary: 'Add performances to an event, priced with every ticket type',
        description:
          'Each item is a performance item of `POST /v1/events`. Each new performance gets a price of every ticket type of the event, at the type’s price and per-performance cap. On a published event the new performances go live at once, one `event.published` each; on a draft they stay drafts until the event is published. One `event.updated` per call. An event has at most 50 performances in all: more answers 400 `limit_reached` (param `performances`) saying how many can still be added. An archived event answers 409 `invalid_state`. A refusal adds nothing.',
        params: IdParams,
        body: AddPerformances,
        response: { 201: success(EventDetail), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const detail = await addPerformances(
        request.db,
        sessionOf(request).organizerId,
        request.params.id,
        request.body.performances,
        app.deps.clock.now(),
      );
      return reply.code(201).send(presentEventDetail(detail));
    },
  );
};

const addTicketTypesRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events/:id/ticket_types',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['events'],
        operationId: 'addTicketTypes',
        summary: 'Add ticket types to an event, priced on every performance',
        description:
          'Each item is a ticket type item of `POST /v1/events`; a name the event already has (in any case) answers 400. Each new type gets a price on every performance of the event: `price_minor`, with `quantity` as its per-performance cap. One `event.updated` per call. An event has at most 20 ticket types in all: more answers 400 `limit_reached` (param `ticket_types`) saying how many can still be added. An archived event answers 409 `invalid_state`. A refusal adds nothing.',
        params: IdParams,
        body: AddTicketTypes,
        response: { 201: success(EventDetail), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const detail = await addTicketTypes(
        request.db,
        sessionOf(request).organizerId,
        request.params.id,
        request.body.ticket_types,
        app.deps.clock.now(),
      );
      return reply.code(201).send(presentEventDetail(detail));
    },
  );
};

const createQuestionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/events/:id/questions',
    {
      config: { resource: 'Event' },
      schema: {
        tags: ['events'],
        operationId: 'createQuestion',
        summary: 'Add a registration question to an event',
        description:
          'A question buyers answer at the box office, once per order or, with `per_attendee`, once per ticket. A key the event already has answers 409 `resource_exists` (param `key`) and nothing changes. Emits no webhook.',
        params: IdParams,
        body: CreateQuestion,
        response: { 201: success(RegistrationQuestion), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const row = await createQuestion(
        request.db,
        request.params.id,
        request.body,
        app.deps.clock.now(),
        sessionOf(request).organizerId,
      );
      return reply.code(201).send(presentQuestion(row));
    },
  );
};

const updateQuestionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/questions/:id',
    {
      config: { resource: 'Question' },
      schema: {
        tags: ['events'],
        operationId: 'updateQuestion',
        summary: 'Change a registration question’s label, required flag or options',
        description:
          'A partial update; answers given later snapshot the new label, earlier ones keep theirs. An empty body answers 400 `empty_update`. Emits no webhook.',
        params: IdParams,
        body: UpdateQuestion,
        response: { 200: success(RegistrationQuestion), ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      presentQuestion(
        await patchQuestion(
          request.db,
          request.params.id,
          request.body,
          app.deps.clock.now(),
          sessionOf(request).organizerId,
        ),
      ),
  );
};

const listHoldsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/performances/:id/holds',
    {
      config: { resource: 'Performance' },
      schema: {
        tags: ['performances'],
        operationId: 'listHolds',
        summary: 'The holds of a performance, newest first',
        description:
          'By default the holds that still hold seats (not released, and a cart hold not past `expires_at`); with `include_released=true` every hold.',
        params: IdParams,
        querystring: ListHoldsQuery,
        response: { 200: success(ListOf(Hold)), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const page = await listHolds(
        request.db,
        request.params.id,
        { limit: request.query.limit ?? PAGE_LIMIT_DEFAULT, starting_after: request.query.starting_after },
        {
          includeReleased: request.query.include_released === true,
          now: app.deps.clock.now(),
          organizerId: sessionOf(request).organizerId,
        },
      );
      return presentList(page, presentHold);
    },
  );
};

const createHoldRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/performances/:id/holds',
    {
      config: { resource: 'Performance' },
      schema: {
        tags: ['performances'],
        operationId: 'createHold',
        summary: 'Hold seats: a hold allocation (no expiry) or a cart hold (expires)',
        description:
          'A hold allocation holds seats until released; a cart hold expires (15 minutes by default). Both count against availability, under the lock a sale takes: more than remain answers 400 `insufficient_inventory`. Emits no webhook.',
        params: IdParams,
        body: CreateHold,
        response: { 201: success(Hold), ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const hold = await createHold(
        request.db,
        request.params.id,
        request.body,
        app.deps.clock.now(),
        sessionOf(request).organizerId,
      );
      return reply.code(201).send(presentHold(hold));
    },
  );
};

const releaseHoldRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.delete(
    '/holds/:id',
    {
      config: { resource: 'Hold' },
      schema: {
        tags: ['performances'],
        operationId: 'releaseHold',
        summary: 'Release a hold: its seats return to sale',
        description:
          'Sets `released_at`; releasing a released hold answers 200 with its first `released_at`. Emits no webhook.',
        params: IdParams,
        response: { 200: success(Hold), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      presentHold(
        await releaseHold(request.db, request.params.id, app.deps.clock.now(), sessionOf(request).organizerId),
      ),
  );
};

const resendTicketsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/orders/:id/resend_tickets',
    {
      // The body is optional: no body sends to the buyer.
      preValidation: bodyOptional,
      config: { resource: 'Order' },
      schema: {
        tags: ['orders'],
        operationId: 'resendTickets',
        summary: 'Send an order’s e-tickets again, to the buyer or another address',
        description:
          'Queues the e-ticket mail once more (the mail log shows it); the mail worker sends it as it sent the first. `email` sends it elsewhere; the buyer’s address stays. Only an order with a purchased or checked-in ticket: an unpaid, cancelled or wholly refunded order answers 409 `invalid_state`. Emits no webhook: `ticket.issued` is emitted once per order, on the first delivery.',
        params: IdParams,
        body: ResendTickets,
        response: { 202: success(QueuedEmail), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const job = await resendTickets(
        request.db,
        request.params.id,
        { email: request.body?.email },
        app.deps.clock.now(),
        sessionOf(request).organizerId,
      );
      return reply.code(202).send(presentQueuedEmail(job));
    },
  );
};

const settleRefundRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/refunds/:id/settle',
    {
      config: { resource: 'Refund' },
      schema: {
        tags: ['orders'],
        operationId: 'settleRefund',
        summary: 'Record the gateway outcome of a pending card refund',
        description:
          'A pending card refund becomes `refunded` or `failed` and emits the settlement’s `order.refunded` (`order_id`, `refund_id`, `status`). A refund that is not pending answers 409 `invalid_state`.',
        params: IdParams,
        body: SettleRefund,
        response: { 200: success(Refund), ...errorResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      presentRefund(
        await settleRefund(
          request.db,
          request.params.id,
          request.body.status,
          app.deps.clock.now(),
          sessionOf(request).organizerId,
        ),
      ),
  );
};

/** The routes of the dashboard's catalog and box-office operations. */
export const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of [
    addPerformancesRoute,
    addTicketTypesRoute,
    createQuestionRoute,
    updateQuestionRoute,
    listHoldsRoute,
    createHoldRoute,
    releaseHoldRoute,
    resendTicketsRoute,
    settleRefundRoute,
  ])
    await app.register(route);
};
