import { Hono } from 'hono';
import { exportConversations, exportFeedback } from '../../../analytics/export.ts';
import type { Storage } from '../../../storage/database.ts';
import { DocentError } from '../../errors.ts';
import { exportHeaders } from '../../export-headers.ts';
import { pullStream } from '../../pull-stream.ts';
import { checkFilterSite } from '../admin/analytics-schemas.ts';
import { filterFromQuery } from './analytics-filter-bar.tsx';
import type { ConsoleEnv } from './console-env.ts';
import { feedbackTab, resolvedOf } from './feedback-screen.tsx';

/**
 * Conversations and feedback as CSV or JSONL, with the screen's filter (and the feedback inbox's tab,
 * `show`), streamed as they are read.
 */
export function exportRoutes(deps: { storage: Storage }): Hono<ConsoleEnv> {
  return new Hono<ConsoleEnv>().get(
    '/console/export/:file{(conversations|feedback)\\.(csv|jsonl)}',
    async (c) => {
      const [what, format] = c.req.param('file').split('.') as [
        'conversations' | 'feedback',
        'csv' | 'jsonl',
      ];
      const { filter, error } = filterFromQuery(c);
      if (error) throw new DocentError('invalid_request', error);
      const organizationId = c.get('session').organization.id;
      // As the admin API's export: a site of another organization (or none) is not an empty file.
      await checkFilterSite(deps.storage, organizationId, filter);
      const rows =
        what === 'conversations'
          ? exportConversations(deps.storage, organizationId, filter, format)
          : exportFeedback(
              deps.storage,
              organizationId,
              { ...filter, resolved: resolvedOf(feedbackTab(c.req.query('show'))) },
              format,
            );
      return c.body(pullStream(rows), 200, exportHeaders(what, filter, format, c.get('requestId')));
    },
  );
}
