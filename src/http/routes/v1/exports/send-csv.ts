/** The response of an export: a streamed CSV download (docs/exports.md). */
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

export function sendCsv(reply: FastifyReply, csv: Readable, disposition: string): FastifyReply {
  return (
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', disposition)
      // Personal data: no shared or private cache keeps a copy.
      .header('cache-control', 'no-store')
      .send(csv)
  );
}
