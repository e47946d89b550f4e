/** A ticket's Apple Wallet pass (docs/tickets.md, "Apple Wallet"): the application/vnd.apple.pkpass response. */
import { Type } from '@sinclair/typebox';

export const ApplePass = {
  description: 'The ticket’s signed Apple Wallet pass',
  headers: {
    'content-disposition': {
      description: '`attachment; filename="ticket-<ticket_no>.pkpass"`',
      type: 'string',
    },
    'cache-control': { description: '`no-store`: personal data, kept by no cache', type: 'string' },
  },
  content: {
    'application/vnd.apple.pkpass': {
      // The handler sends the bytes (a Buffer); the document says a binary string.
      schema: Type.Unsafe<Buffer>({
        type: 'string',
        format: 'binary',
        description:
          'A .pkpass (zip): pass.json (eventTicket; QR barcode = the ticket’s serial, relevantDate = the start), ' +
          'images, manifest.json and its PKCS #7 signature',
      }),
    },
  },
};
