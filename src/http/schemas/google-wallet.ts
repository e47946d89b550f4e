/**
 * Google Wallet (docs/tickets.md, "Google Wallet"): the organizer's settings (dashboard
 * only; docs/dashboard.md, "Wallet passes") and an order's save link (/v1).
 */
import { Type } from '@sinclair/typebox';

export const GoogleWalletSettings = Type.Object({
  issuer_id: Type.String({ description: 'the Google Wallet issuer id, digits' }),
  service_account_email: Type.String({ description: 'the service account that signs the links (`client_email`)' }),
  key_id: Type.String({ description: 'the service-account key’s `private_key_id`, the links’ JWT `kid`' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const UpdateGoogleWalletSettings = Type.Object(
  {
    issuer_id: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'the issuer id the Google Pay & Wallet Console shows: 1 to 32 digits',
    }),
    service_account_key: Type.String({
      minLength: 1,
      maxLength: 20000,
      description:
        'the service account’s JSON key file as Google Cloud downloads it (`type` "service_account", `client_email`, `private_key_id`, `private_key`); its private key is stored encrypted and never answered',
    }),
  },
  { additionalProperties: false },
);

export const GoogleWalletLink = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      description:
        'https://pay.google.com/gp/v/save/<jwt>: opening it adds every valid ticket of the order to Google Wallet',
    }),
  },
  { $id: 'GoogleWalletLink', description: 'An order’s "Add to Google Wallet" link', additionalProperties: false },
);
