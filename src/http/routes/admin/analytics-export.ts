import { Hono } from 'hono';
import { z } from 'zod';
import type { AnalyticsFilter } from '../../../analytics/analytics-filter.ts';
import { exportConversations, exportFeedback } from '../../../analytics/export.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { EXPORT_CONTENT_TYPES, exportHeaders } from '../../export-headers.ts';
import { errorResponses, type Operation } from '../../openapi.ts';
import { pullStream } from '../../pull-stream.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import {
  checkFilterSite,
  feedbackFilterQuery,
  filterQuery,
  filterQueryDoc,
  resolvedSchema,
} from './analytics-schemas.ts';

const exports = (['conversations', 'feedback'] as const).flatMap((what) =>
  (['csv', 'jsonl'] as const).map((format) => ({
    what,
    format,
    path: `/v1/admin/analytics/export/${what}.${format}`,
  })),
);

type Export = (typeof exports)[number];

const operationOf = (e: Export): Operation => ({
  method: 'get',
  path: e.path,
  summary:
    e.what === 'conversations'
      ? `Export the conversations the filter selects, one message per ${e.format === 'csv' ? 'row' : 'line'}`
      : `Export the votes the filter selects, one per ${e.format === 'csv' ? 'row' : 'line'}`,
  description:
    "Streamed as it is read, as an attachment. CSV cells a spreadsheet would run as a formula start with `'`.",
  tags: ['Analytics'],
  security: [{ adminKey: [] }],
  request: {
    query: e.what === 'feedback' ? filterQueryDoc.extend({ resolved: resolvedSchema }) : filterQueryDoc,
  },
  responses: {
    200: { description: 'The export', content: { [EXPORT_CONTENT_TYPES[e.format]]: { schema: z.string() } } },
    ...errorResponses(400, 401, 404, 429),
  },
});

const queryOf = (e: Export) => (e.what === 'feedback' ? feedbackFilterQuery : filterQuery);

const routeOf =
  (e: Export) =>
  (deps: AdminDeps): Hono<AdminEnv> =>
    // The feedback export takes the listing's `resolved` too; the conversations export refuses it.
    new Hono<AdminEnv>().get(e.path, validate('query', queryOf(e)), async (c) => {
      const { filter, resolved }: { filter: AnalyticsFilter; resolved?: boolean | undefined } =
        c.req.valid('query');
      const organizationId = c.get('admin').organization.id;
      await checkFilterSite(deps.storage, organizationId, filter);
      const rows =
        e.what === 'conversations'
          ? exportConversations(deps.storage, organizationId, filter, e.format)
          : exportFeedback(deps.storage, organizationId, { ...filter, resolved }, e.format);
      return new Response(pullStream(rows), {
        headers: exportHeaders(e.what, filter, e.format, c.get('requestId')),
      });
    });

export const exportRoutes: [Operation, (deps: AdminDeps) => Hono<AdminEnv>][] = exports.map((e) => [
  operationOf(e),
  routeOf(e),
]);
