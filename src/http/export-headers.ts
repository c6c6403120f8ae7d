import type { AnalyticsFilter } from '../analytics/analytics-filter.ts';
import { type ExportFormat, exportFileName } from '../analytics/export.ts';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/jsonl; charset=utf-8',
};

/**
 * An export's response headers, the same from the admin API and the console: a file named for what it
 * holds and its dates, never cached (it holds readers' questions).
 */
export function exportHeaders(
  what: 'conversations' | 'feedback',
  filter: Pick<AnalyticsFilter, 'from' | 'to'>,
  format: ExportFormat,
  requestId: string,
): Record<string, string> {
  return {
    'Content-Type': EXPORT_CONTENT_TYPES[format],
    'Content-Disposition': `attachment; filename="${exportFileName(what, filter, format)}"`,
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
  };
}
