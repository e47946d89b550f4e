/**
 * The API's shapes by name, from the types generated out of the OpenAPI document
 * (./generated/openapi.ts, `npm run sdk:generate`; CI fails when they are stale).
 */
import type { components, operations } from './generated/openapi.ts';

type Schemas = components['schemas'];

export type CurrentApiKey = Schemas['CurrentApiKey'];
export type Event = Schemas['Event'];
export type EventDetail = Schemas['EventDetail'];
export type TicketType = Schemas['TicketType'];
export type Price = Schemas['Price'];
export type Performance = Schemas['Performance'];
export type Availability = Schemas['Availability'];
export type Order = Schemas['Order'];
export type OrderDetail = Schemas['OrderDetail'];
export type OrderTransaction = Schemas['OrderTransaction'];
export type GoogleWalletLink = Schemas['GoogleWalletLink'];
export type RegistrationAnswer = Schemas['RegistrationAnswer'];
export type RegistrationQuestion = Schemas['RegistrationQuestion'];
export type Ticket = Schemas['Ticket'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type DeletedWebhookEndpoint = Schemas['DeletedWebhookEndpoint'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryDetail = Schemas['WebhookDeliveryDetail'];
export type WebhookDeliveryAttempt = Schemas['WebhookDeliveryAttempt'];
export type WebhookRecovery = Schemas['WebhookRecovery'];
export type CreateEventRequest = Schemas['CreateEventRequest'];
export type UpdateEventRequest = Schemas['UpdateEventRequest'];
export type CreateOrderRequest = Schemas['CreateOrderRequest'];
export type CreateWebhookEndpointRequest = Schemas['CreateWebhookEndpointRequest'];
export type UpdateWebhookEndpointRequest = Schemas['UpdateWebhookEndpointRequest'];
export type RecoverWebhookEndpointRequest = Schemas['RecoverWebhookEndpointRequest'];
export type DoorDeviceSelf = Schemas['DoorDeviceSelf'];
export type ClaimedDoorDevice = Schemas['ClaimedDoorDevice'];
export type DoorTicket = Schemas['DoorTicket'];
export type CheckInScan = Schemas['CheckInScan'];
export type UploadCheckInsRequest = Schemas['UploadCheckInsRequest'];
export type UploadedCheckIns = Schemas['UploadedCheckIns'];

/** Any webhook body, a union discriminated on `type`. */
export type WebhookEvent = Schemas['WebhookEvent'];
export type OrderCreatedEvent = Schemas['OrderCreatedEvent'];
export type OrderPaidEvent = Schemas['OrderPaidEvent'];
export type OrderRefundedEvent = Schemas['OrderRefundedEvent'];
export type TicketIssuedEvent = Schemas['TicketIssuedEvent'];
export type TicketCheckedInEvent = Schemas['TicketCheckedInEvent'];
export type EventPublishedEvent = Schemas['EventPublishedEvent'];
export type EventUpdatedEvent = Schemas['EventUpdatedEvent'];
export type TestPingEvent = Schemas['TestPingEvent'];

/** The query parameters of a list operation, without the cursor (the client follows it). */
type ListQuery<K extends keyof operations> = Omit<
  NonNullable<operations[K]['parameters']['query']>,
  'starting_after'
> & {
  /** Start after this id instead of at the beginning. */
  starting_after?: string;
};

export type ListEventsParams = ListQuery<'listEvents'>;
export type ListEventPerformancesParams = ListQuery<'listEventPerformances'>;
export type ListEventQuestionsParams = ListQuery<'listEventQuestions'>;
export type ListOrdersParams = ListQuery<'listOrders'>;
export type ListTicketsParams = ListQuery<'listTickets'>;
export type ListWebhookEndpointsParams = ListQuery<'listWebhookEndpoints'>;
export type ListWebhookDeliveriesParams = ListQuery<'listWebhookDeliveries'>;
export type ListDoorTicketsParams = ListQuery<'listDoorTickets'>;
export type ListCheckInsParams = ListQuery<'listCheckIns'>;

export interface GetOrderParams {
  /** `['items']` embeds each transaction's tickets. */
  expand?: NonNullable<NonNullable<operations['getOrder']['parameters']['query']>['expand[]']>;
}

/** The query of the CSV exports: `performance_id` (one performance of the event) and `bom`. */
export type ExportParams = NonNullable<operations['exportEventTickets']['parameters']['query']>;
