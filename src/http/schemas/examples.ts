/**
 * Realistic examples for the OpenAPI document: one sale, end to end, as the service
 * answers it. A test validates every example against its schema, so they cannot drift.
 */
const EVENT_ID = '67c1d715-d7e3-4cf4-b74c-6a70d4d29c1b';
const PERFORMANCE_ID = '1c721279-854c-458a-9124-f115dfc1ca66';
const STANDARD_ID = '30d9e514-51f0-4e01-9588-2fc19be9b261';
const STUDENT_ID = 'fc08ba59-ec79-4e12-9c90-6d869fde2d75';
const ORDER_ID = 'dc53ef2e-a258-43de-9b33-3f14a1029cde';
const ENDPOINT_ID = 'd8d7753e-282e-4819-ae96-e91e2e23ab04';
const CREATED = '2026-11-24T22:23:08.322Z';
const SOLD = '2026-11-24T22:23:08.685Z';

const event = {
  id: EVENT_ID,
  object: 'event',
  title: 'Jazz at the Lighthouse',
  description: '<p>An evening of standards.</p>',
  admission_type: 'general_admission',
  image_url: null,
  contact_email: null,
  timezone: 'Europe/Berlin',
  venue_id: 'c07006a3-81ab-40d8-b991-37f81d9d25c6',
  category_id: '6b6e4501-0524-416a-ba82-7229f228a9a0',
  is_archived: false,
  translations: [{ locale: 'en', title: 'Jazz at the Lighthouse', description: '<p>An evening of standards.</p>' }],
  created_at: CREATED,
  updated_at: CREATED,
};

const ticketType = (
  id: string,
  name: string,
  description: string | null,
  sortOrder: number,
  price: number,
  cap: number,
) => ({
  id,
  object: 'ticket_type',
  name,
  description,
  sort_order: sortOrder,
  translations: [{ locale: 'en', name, description }],
  updated_at: CREATED,
  prices: [
    {
      performance_id: PERFORMANCE_ID,
      seat_category_key: 'general',
      price_minor: price,
      limited_quantity: cap,
      is_active: true,
    },
  ],
});

const ticket = (id: string, n: number, serial: string) => ({
  id,
  object: 'ticket',
  ticket_no: `BW3KPTD2-00${n}`,
  serial_no: serial,
  status: 'purchased',
  performance_id: PERFORMANCE_ID,
  ticket_type_id: STANDARD_ID,
  holder: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
  is_free: false,
  unit_price_minor: 3500,
  total_minor: 3500,
  checked_in_at: null,
  transferred_at: null,
  order_id: ORDER_ID,
  order_no: 'BW3KPTD2',
  created_at: SOLD,
  updated_at: SOLD,
});

const order = {
  id: ORDER_ID,
  object: 'order',
  order_no: 'BW3KPTD2',
  status: 'placed',
  channel: 'box_office',
  buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: null },
  currency: 'EUR',
  total_minor: 7000,
  etickets_sent_at: null,
  disputed_at: null,
  created_at: SOLD,
  updated_at: SOLD,
};

const webhookEndpoint = {
  id: ENDPOINT_ID,
  object: 'webhook_endpoint',
  url: 'https://hooks.example.com/marquee',
  description: 'Box office sync',
  event_types: ['order.created', 'ticket.checked_in'],
  status: 'enabled',
  disabled_reason: null,
  secret_preview: 'whsec_lUxa…KWRE',
  created_at: '2026-11-24T22:23:12.726Z',
  updated_at: '2026-11-24T22:23:12.726Z',
};

/** One attempt of a delivery, as the delivery detail shows it. */
const DELIVERY_ATTEMPT = {
  attempt: 1,
  response_status: 503,
  response_ms: 41,
  error: 'HTTP 503',
  response_headers: {
    'content-type': 'application/json',
    'content-length': '61',
    'retry-after': '120',
    date: 'Tue, 24 Nov 2026 22:23:12 GMT',
    server: 'nginx',
  },
  response_body: '{"error":"maintenance","detail":"back at 23:00 UTC, sorry!"}\n',
  response_body_truncated: false,
  created_at: '2026-11-24T22:23:12.866Z',
};

export const EXAMPLES = {
  registrationQuestion: {
    id: '9a3e5c1f-2b7d-4e8a-b6c4-1d0f3e5a7c92',
    object: 'registration_question',
    event_id: EVENT_ID,
    key: 'dietary',
    label: 'Dietary requirements',
    type: 'select',
    options: [
      { key: 'none', label: 'None' },
      { key: 'vegetarian', label: 'Vegetarian' },
      { key: 'vegan', label: 'Vegan' },
    ],
    required: true,
    per_attendee: true,
    created_at: CREATED,
    updated_at: CREATED,
  },
  currentApiKey: {
    id: '5b0f8a8e-3d7c-4f2a-9a51-0c6e2f7d9b14',
    object: 'api_key',
    name: 'Box office',
    key_preview: 'mqk_Xq3v9T',
    scopes: ['read', 'write'],
    expires_at: null,
    created_at: '2026-11-24T22:20:00.000Z',
    organizer: {
      id: '0e3c1d2b-7f4a-4c8e-9b6d-5a2f1e0c9d87',
      name: 'Lighthouse Jazz Club',
      currency: 'EUR',
      timezone: 'Europe/Berlin',
    },
  },
  event,
  eventDetail: {
    ...event,
    ticket_types: [
      ticketType(STANDARD_ID, 'Standard', null, 0, 3500, 250),
      ticketType(STUDENT_ID, 'Student', 'Valid student ID required at the door', 1, 1800, 50),
    ],
  },
  createEvent: {
    title: 'Jazz at the Lighthouse',
    description: '<p>An evening of standards.</p>',
    timezone: 'Europe/Berlin',
    venue: { name: 'Lighthouse Hall' },
    category_name: 'Concerts',
    performances: [{ starts_at: '2027-03-12T18:30:00Z', ends_at: '2027-03-12T21:00:00Z', capacity: 300 }],
    ticket_types: [
      { name: 'Standard', price_minor: 3500, quantity: 250 },
      { name: 'Student', description: 'Valid student ID required at the door', price_minor: 1800, quantity: 50 },
    ],
  },
  updateEvent: { title: 'Jazz at the Lighthouse: late set', contact_email: 'boxoffice@example.com' },
  performance: {
    id: PERFORMANCE_ID,
    object: 'performance',
    event_id: EVENT_ID,
    status: 'published',
    title: null,
    starts_at: '2027-03-12T18:30:00.000Z',
    ends_at: '2027-03-12T21:00:00.000Z',
    capacity: 300,
    online_sales_enabled: true,
    box_office_sales_enabled: true,
    translations: [],
    created_at: CREATED,
    updated_at: CREATED,
  },
  availability: {
    object: 'availability',
    performance_id: PERFORMANCE_ID,
    performance_remaining: 298,
    ticket_types: [
      { ticket_type_id: STANDARD_ID, remaining: 248 },
      { ticket_type_id: STUDENT_ID, remaining: 50 },
    ],
  },
  order,
  orderDetail: {
    ...order,
    transactions: [
      {
        id: 'd5f3aa83-be4d-4f70-af35-635148130673',
        object: 'order_transaction',
        transaction_no: 'BW3KPTD2-T1',
        event_id: EVENT_ID,
        performance_id: PERFORMANCE_ID,
        delivery_method: 'eticket',
        items_total_minor: 7000,
        surcharges_minor: 0,
        taxes_minor: 0,
        service_fees_minor: 0,
        total_minor: 7000,
        items: [
          ticket('47c82abf-8a3a-4831-9c85-a42e52c1dc01', 1, 'X757RSJ2T3IKV3F3Y57S5TNFOLZ7L4QP'),
          ticket('4a9a5717-2ea7-4c5c-a9e9-6ba2b2212696', 2, 'MI5VQMIWWQWEVLGRMS6D2A4SM27NCEEU'),
        ],
      },
    ],
    registration_answers: [
      {
        object: 'registration_answer',
        key: 'dietary',
        label: 'Dietary requirements',
        ticket_no: 'BW3KPTD2-001',
        value: 'vegetarian',
        value_labels: null,
      },
    ],
  },
  createOrder: {
    items: [{ performance_id: PERFORMANCE_ID, ticket_type_id: STANDARD_ID, quantity: 2 }],
    buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
    tender: 'cash',
    registration_answers: [{ field_key: 'dietary', ticket_no: '1', value: 'vegetarian' }],
  },
  ticket: ticket('47c82abf-8a3a-4831-9c85-a42e52c1dc01', 1, 'X757RSJ2T3IKV3F3Y57S5TNFOLZ7L4QP'),
  webhookEndpoint,
  webhookEndpointWithSecret: { ...webhookEndpoint, secret: 'whsec_lUxaDZCkQ83I2+5D/x14qRetC0rDd9KIFTeENc1KWRE=' },
  createWebhookEndpoint: {
    url: 'https://hooks.example.com/marquee',
    description: 'Box office sync',
    event_types: ['order.created', 'ticket.checked_in'],
  },
  updateWebhookEndpoint: { event_types: ['order.created', 'order.refunded'], status: 'enabled' },
  webhookDelivery: {
    id: 'b16e29bb-83a6-4117-bf5e-2cabe80dd345',
    object: 'webhook_delivery',
    endpoint_id: ENDPOINT_ID,
    event_id: 'eb32962d-65eb-4408-bf6a-e566a6fbd99a',
    event_type: 'order.created',
    status: 'failed',
    attempt: 1,
    response_status: 503,
    response_ms: 41,
    error: 'the endpoint answered 503',
    next_retry_at: '2026-11-24T22:23:42.866Z',
    created_at: '2026-11-24T22:23:12.834Z',
    updated_at: '2026-11-24T22:23:12.866Z',
  },
  webhookDeliveryAttempt: DELIVERY_ATTEMPT,
  webhookDeliveryDetail: {
    id: 'b16e29bb-83a6-4117-bf5e-2cabe80dd345',
    object: 'webhook_delivery',
    endpoint_id: ENDPOINT_ID,
    event_id: 'eb32962d-65eb-4408-bf6a-e566a6fbd99a',
    event_type: 'order.created',
    status: 'failed',
    attempt: 1,
    response_status: 503,
    response_ms: 41,
    error: 'HTTP 503',
    next_retry_at: '2026-11-24T22:23:42.866Z',
    created_at: '2026-11-24T22:23:12.834Z',
    updated_at: '2026-11-24T22:23:12.866Z',
    payload:
      '{"type":"order.created","timestamp":"2026-11-24T22:23:12.834Z","data":{"order_id":"0b3f6f7e-4c1d-4d8e-9a51-6f2b7c3e9d10","order_no":"M-6V2Q-8K4D","status":"placed","total_minor":9000,"currency":"EUR","channel":"boxOffice"}}',
    attempts: [DELIVERY_ATTEMPT],
  },
  recoverWebhookEndpoint: { since: '2026-11-24T00:00:00Z' },
  webhookRecovery: {
    object: 'webhook_recovery',
    endpoint_id: ENDPOINT_ID,
    since: '2026-11-24T00:00:00.000Z',
    redelivered: 12,
    already_pending: 2,
    has_more: false,
  },
};
