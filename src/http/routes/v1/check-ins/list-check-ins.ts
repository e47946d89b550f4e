import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listCheckIns } from '../../../../domain/check-ins/scans.ts';
import { tenantOf } from '../../../context.ts';
import { CheckInScanList, ListCheckInsQuery } from '../../../schemas/check-ins.ts';
import { errorResponses, PAGE_LIMIT_DEFAULT, success } from '../../../schemas/common.ts';
import { presentList } from '../../../presenters/list.ts';
import { presentCheckInScan } from '../../../presenters/check-ins.ts';

export const listCheckInsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/check_ins',
    {
      config: { scope: ['read', 'check_in'] },
      schema: {
        tags: ['tickets'],
        operationId: 'listCheckIns',
        summary: 'List uploaded scans, newest first',
        description:
          'The scans uploaded with POST /v1/check_ins and their outcomes, by `received_at` newest first, paginated; filter by `outcome` (`already_checked_in`: the double entries), `performance_id` and `received_gte`. A door device’s key sees the scans on its performances and its own uploads, so both gates of a double entry see it (docs/check-ins.md).',
        querystring: ListCheckInsQuery,
        response: { 200: success(CheckInScanList), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, starting_after, outcome, performance_id, received_gte } = request.query;
      const page = await listCheckIns(
        request.db,
        tenantOf(request),
        { outcome, performance_id, received_gte: received_gte === undefined ? undefined : new Date(received_gte) },
        { limit: limit ?? PAGE_LIMIT_DEFAULT, starting_after },
      );
      return presentList(page, presentCheckInScan);
    },
  );
};
