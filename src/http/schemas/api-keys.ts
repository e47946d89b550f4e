/** The calling API key (GET /v1/api_key): who it acts for and what it may do. */
import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';
import { EXAMPLES } from './examples.ts';

export const CurrentApiKey = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('api_key'),
    name: Nullable(Type.String()),
    key_preview: Type.String({ description: 'the first characters of the key (prefix included), to recognise it' }),
    scopes: Type.Array(Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('check_in')]), {
      description:
        '`read` allows every GET, `write` every POST, PATCH and DELETE; `check_in` (a door device’s key, alone) only its tickets and their check-in (docs/door.md)',
    }),
    expires_at: Nullable(Timestamp),
    created_at: Timestamp,
    organizer: Type.Object({
      id: Uuid,
      name: Type.String(),
      currency: Type.String({ description: 'ISO 4217 code of its prices and orders' }),
      timezone: Type.String({ description: 'IANA time zone id, the default of its events' }),
    }),
  },
  {
    $id: 'CurrentApiKey',
    description: 'The API key of the request, its scopes and its organizer',
    examples: [EXAMPLES.currentApiKey],
  },
);
