/** An event's ticket settings (docs/dashboard.md, "Event ticket settings"): dashboard only. */
import { Type } from '@sinclair/typebox';
import { LANGUAGES } from '../../i18n/index.ts';
import { Nullable, StringEnum } from './common.ts';
import { TicketLanguage } from './organizers.ts';

export const EventTicketSettings = Type.Object({
  language: Nullable(
    Type.String({ description: 'the event’s own language; null: the organizer’s `default_language` applies' }),
  ),
  effective_language: StringEnum(LANGUAGES, {
    description:
      'what its buyers’ e-mails, PDF tickets and passes speak: the event’s language, else the organizer’s default, else en',
  }),
});

export const UpdateEventTicketSettings = Type.Object(
  { language: Nullable(TicketLanguage) },
  { additionalProperties: false },
);
