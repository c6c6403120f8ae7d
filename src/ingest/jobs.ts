import { siteGoneOr } from '../storage/constraint-violations.ts';
import type { Storage } from '../storage/database.ts';
import { newId, nowIso } from '../storage/ids.ts';
import type { IngestionJobsTable, IngestionStatus } from '../storage/schema.ts';
import type { Warning } from './types.ts';

export interface IngestionCounts {
  /** Pages the site has after this ingestion. */
  pages: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Pages left out on purpose (hidden, noindex, not in navigation). */
  skipped: number;
  /** Chunks written (for added and updated pages). */
  chunksWritten: number;
  warnings: number;
}

export interface IngestionJob {
  id: string;
  siteId: string;
  status: IngestionStatus;
  sourceDir: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  counts: IngestionCounts | null;
  warnings: Warning[];
  error: string | null;
}

function toJob(row: IngestionJobsTable): IngestionJob {
  // A job that has not finished stores `{}`.
  const counts = JSON.parse(row.counts) as Partial<IngestionCounts>;
  return {
    id: row.id,
    siteId: row.site_id,
    status: row.status,
    sourceDir: row.source_dir,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    counts: counts.pages === undefined ? null : (counts as IngestionCounts),
    warnings: JSON.parse(row.warnings) as Warning[],
    error: row.error,
  };
}

/** `instanceId`: the registered process that will run it (null: none, as before instances existed). */
export async function createIngestionJob(
  storage: Storage,
  siteId: string,
  sourceDir: string,
  instanceId: string | null,
): Promise<IngestionJob> {
  const row: IngestionJobsTable = {
    id: newId('ing'),
    site_id: siteId,
    status: 'queued',
    source_dir: sourceDir,
    created_at: nowIso(),
    started_at: null,
    finished_at: null,
    counts: '{}',
    warnings: '[]',
    error: null,
    instance_id: instanceId,
  };
  try {
    await storage.db.insertInto('ingestion_jobs').values(row).execute();
  } catch (error) {
    throw siteGoneOr(error);
  }
  return toJob(row);
}

export async function markIngestionStarted(storage: Storage, id: string): Promise<void> {
  await storage.db
    .updateTable('ingestion_jobs')
    .set({ status: 'in_progress', started_at: nowIso() })
    .where('id', '=', id)
    .execute();
}

/** Longest failure message stored: enough for any error worth reading, bounded for the job row. */
export const MAX_JOB_ERROR_LENGTH = 4000;

/**
 * A failed job always says why, in a form both databases store: an error without a message would read
 * as no error, and PostgreSQL refuses text holding U+0000, which would leave the job in_progress.
 */
export function jobErrorMessage(error: string | undefined): string {
  const text = (error ?? '').replaceAll('\u0000', '').trim();
  if (text === '') return 'ingestion failed without an error message';
  return text.length > MAX_JOB_ERROR_LENGTH ? `${text.slice(0, MAX_JOB_ERROR_LENGTH)}…` : text;
}

export async function finishIngestionJob(
  storage: Storage,
  id: string,
  outcome: {
    status: 'success' | 'failure';
    counts: IngestionCounts | null;
    warnings: Warning[];
    error?: string;
  },
): Promise<void> {
  await storage.db
    .updateTable('ingestion_jobs')
    .set({
      status: outcome.status,
      finished_at: nowIso(),
      counts: JSON.stringify(outcome.counts ?? {}),
      warnings: JSON.stringify(outcome.warnings),
      error: outcome.status === 'failure' ? jobErrorMessage(outcome.error) : null,
    })
    .where('id', '=', id)
    .execute();
}

/** Records a job as failed with the error's message (what the caller then rethrows). */
export async function failIngestionJob(storage: Storage, id: string, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await finishIngestionJob(storage, id, { status: 'failure', counts: null, warnings: [], error: message });
}

export async function getIngestionJob(storage: Storage, id: string): Promise<IngestionJob | undefined> {
  const row = await storage.db
    .selectFrom('ingestion_jobs')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toJob(row) : undefined;
}

export async function listIngestionJobs(
  storage: Storage,
  siteId: string,
  limit = 20,
): Promise<IngestionJob[]> {
  const rows = await storage.db
    .selectFrom('ingestion_jobs')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy('created_at', 'desc')
    // Ids are time-ordered: jobs made in the same millisecond keep their order.
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toJob);
}

/**
 * The site's queued or running ingestion, as the job table says. `serversOnly`: only a server process's
 * (a process that died has its jobs failed by its successor's recovery); a CLI's job has no instance, and
 * nothing can tell whether it still lives, so a refusal must not wait on it forever.
 */
export async function unfinishedIngestion(
  storage: Pick<Storage, 'db'>,
  siteId: string,
  options: { serversOnly?: boolean } = {},
): Promise<string | undefined> {
  let query = storage.db
    .selectFrom('ingestion_jobs')
    .select('id')
    .where('site_id', '=', siteId)
    .where('status', 'in', ['queued', 'in_progress']);
  if (options.serversOnly) query = query.where('instance_id', 'is not', null);
  return (await query.executeTakeFirst())?.id;
}
