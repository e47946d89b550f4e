/** An organizer's Apple Wallet settings (docs/dashboard.md, "Wallet passes"): dashboard only. */
import { Type } from '@sinclair/typebox';
import { Nullable } from './common.ts';

const Colour = Type.String({
  maxLength: 32,
  description: 'rgb(r, g, b) or #rrggbb; answered as rgb(r, g, b), as Apple takes it',
});

export const AppleWalletSettings = Type.Object({
  configured: Type.Boolean({ description: 'whether tickets get an Apple Wallet pass' }),
  pass_type_identifier: Nullable(Type.String({ description: 'e.g. pass.com.example.tickets' })),
  team_identifier: Nullable(Type.String({ description: 'the Apple developer team id' })),
  certificate_subject: Nullable(Type.String({ description: 'the pass type certificate’s subject' })),
  certificate_expires_at: Nullable(Type.String({ format: 'date-time', description: 'when the certificate expires' })),
  background_color: Nullable(Colour),
  foreground_color: Nullable(Colour),
  label_color: Nullable(Colour),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
});

export const UpdateAppleWalletSettings = Type.Object(
  {
    pass_type_identifier: Type.String({ minLength: 1, maxLength: 255 }),
    team_identifier: Type.String({ minLength: 1, maxLength: 64 }),
    certificate_pem: Type.String({ minLength: 1, maxLength: 20000, description: 'the pass type certificate, PEM' }),
    private_key_pem: Type.String({
      minLength: 1,
      maxLength: 20000,
      description: 'its private key, PEM; stored encrypted, never answered',
    }),
    private_key_passphrase: Type.Optional(Type.String({ maxLength: 1000, description: 'when the key is encrypted' })),
    wwdr_certificate_pem: Type.String({
      minLength: 1,
      maxLength: 20000,
      description: 'Apple’s WWDR intermediate certificate, PEM',
    }),
    background_color: Type.Optional(Nullable(Colour)),
    foreground_color: Type.Optional(Nullable(Colour)),
    label_color: Type.Optional(Nullable(Colour)),
  },
  { additionalProperties: false },
);
