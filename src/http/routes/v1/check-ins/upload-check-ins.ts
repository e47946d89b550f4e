import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { uploadCheckIns } from '../../../../domain/check-ins/upload.ts';
import { invalid } from '../../../../errors/domain-error.ts';
import { tenantOf } from '../../../context.ts';
import { MAX_SCANS_PER_UPLOAD, UploadCheckIns, UploadedCheckIns } from '../../../schemas/check-ins.ts';
import { errorResponses, success } from '../../../schemas/common.ts';
import { presentCheckInScan } from '../../../presenters/check-ins.ts';

/**
 * Too many scans is refused before the schema validates every one of them, with a sentence
 * of its own (the schema's maxItems documents the limit; the body limit bounds the work).
 */
async function refuseOversizedUpload(request: FastifyRequest): Promise<void> {
  const data = (request.body as { data?: unknown } | null | undefined)?.data;
  if (Array.isArray(data) && data.length > MAX_SCANS_PER_UPLOAD)
    throw invalid(
      'parameter_invalid',
      `\`data\` must have at most ${MAX_SCANS_PER_UPLOAD} items: at most ${MAX_SCANS_PER_UPLOAD} scans per upload, and this one has ${data.length}. Upload the rest in further requests.`,
      'data',
    );
}

export const uploadCheckInsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/check_ins',
    {
      preValidation: refuseOversizedUpload,
      config: { scope: ['write', 'check_in'] },
      schema: {
        tags: ['tickets'],
        operationId: 'uploadCheckIns',
        summary: 'Upload a door’s offline scans',
        description: `Applies 1 to ${MAX_SCANS_PER_UPLOAD} scans in \`scanned_at\` order (ties: request order), each with the atomic guards of check-in, and answers every scan’s outcome in request order: \`admitted\` (its \`scanned_at\` becomes the ticket’s \`checked_in_at\`, clamped to now), \`already_checked_in\` (with the first admission’s time and device: a double entry) or \`not_admittable\` with its \`reason\`. A scan whose \`device_scan_id\` this key uploaded before is answered from its first outcome and changes nothing. \`ticket.checked_in\` is emitted once per ticket (docs/check-ins.md).`,
        body: UploadCheckIns,
        response: {
          200: success(UploadedCheckIns),
          ...errorResponses(400, 401, 403, 409, 413, 415),
        },
      },
    },
    async (request) => {
      const rows = await uploadCheckIns(request.db, tenantOf(request), request.body.data, app.deps.clock.now());
      return { object: 'list' as const, data: rows.map(presentCheckInScan) };
    },
  );
};
