/**
 * Every schema that is a component of the OpenAPI document (docs/openapi.md): registered
 * once with Fastify (serialization, the document) and with the request validator, and
 * referenced everywhere else by `ref()` (./common.ts).
 */
import type { TSchema } from '@sinclair/typebox';
import { webhookEventSchemas } from '../openapi-webhooks.ts';
import { CurrentApiKey } from './api-keys.ts';
import {
  CheckInScan,
  CheckInScanList,
  DoorTicket,
  DoorTicketList,
  UploadCheckIns,
  UploadedCheckIns,
} from './check-ins.ts';
import { Problem } from './common.ts';
import { ClaimedDoorDevice, DoorDeviceSelf } from './door-devices.ts';
import { CreateEvent, Event, EventDetail, EventList, Price, TicketType, UpdateEvent } from './events.ts';
import { GoogleWalletLink } from './google-wallet.ts';
import { CreateOrder, Order, OrderDetail, OrderList, OrderTransaction } from './orders.ts';
import { Availability, Performance, PerformanceList } from './performances.ts';
import { RegistrationAnswer, RegistrationQuestion, RegistrationQuestionList } from './questions.ts';
import { Ticket, TicketList } from './tickets.ts';
import {
  CreateWebhookEndpoint,
  DeletedWebhookEndpoint,
  RecoverWebhookEndpoint,
  UpdateWebhookEndpoint,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookRecovery,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
} from './webhooks.ts';

export const componentSchemas: readonly (TSchema & { $id: string })[] = [
  Problem,
  CurrentApiKey,
  DoorDeviceSelf,
  ClaimedDoorDevice,
  Event,
  EventDetail,
  EventList,
  TicketType,
  Price,
  CreateEvent,
  UpdateEvent,
  Performance,
  PerformanceList,
  Availability,
  Order,
  OrderDetail,
  OrderList,
  OrderTransaction,
  GoogleWalletLink,
  RegistrationAnswer,
  RegistrationQuestion,
  RegistrationQuestionList,
  CreateOrder,
  Ticket,
  TicketList,
  UploadCheckIns,
  CheckInScan,
  CheckInScanList,
  UploadedCheckIns,
  DoorTicket,
  DoorTicketList,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookEndpointList,
  DeletedWebhookEndpoint,
  CreateWebhookEndpoint,
  UpdateWebhookEndpoint,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryAttempt,
  WebhookDeliveryList,
  RecoverWebhookEndpoint,
  WebhookRecovery,
  ...webhookEventSchemas,
].map((schema) => {
  if (schema.$id === undefined) throw new Error('a component schema needs an $id');
  return schema as TSchema & { $id: string };
});
