import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';
import { clearStagedPages } from './page-staging.ts';

/** What an interrupted job says: the site kept its last completed ingestion (ingestion is one transaction). */
export const INTERRUPTED_INGESTION_ERROR =
  'Interrupted: the process running this ingestion stopped before it finished. The site still serves ' +
  'its last completed ingestion; start the ingestion again.';

/**
 * Marks failed the queued and running ingestion jobs of server instances that died, and of instances
 * whose row is gone: no live process will finish them. Jobs without an instance (written before
 * instances were recorded) are left alone. Returns how many were marked.
 */
export async function recoverInterruptedIngestions(
  storage: Storage,
  deadInstanceIds: string[],
): Promise<number> {
  const result = await storage.db
    .updateTable('ingestion_jobs')
    .set({ status: 'failure', finished_at: nowIso(), error: INTERRUPTED_INGESTION_ERROR })
    .where('status', 'in', ['queued', 'in_progress'])
    .where('instance_id', 'is not', null)
    .where((eb) =>
      eb.or([
        ...(deadInstanceIds.length > 0 ? [eb('instance_id', 'in', deadInstanceIds)] : []),
        eb('instance_id', 'not in', eb.selectFrom('server_instances').select('id')),
      ]),
    )
    .executeTakeFirst();
  await clearEndedJobsStaging(storage);
  return Number(result.numUpdatedRows);
}

/**
 * Deletes the staged pages (page-staging.ts) of every job that has ended: a job's own run clears them
 * when it finishes or fails, so what is left belongs to a process that died mid-ingestion (its job was
 * just marked failed above) or that could not clear them. Jobs still queued or running keep theirs.
 */
export async function clearEndedJobsStaging(storage: Storage): Promise<void> {
  const ended = (
    await storage.db
      .selectFrom('ingestion_staged_pages')
      .select('job_id')
      .distinct()
      .where('job_id', 'not in', (eb) =>
        eb.selectFrom('ingestion_jobs').select('id').where('status', 'in', ['queued', 'in_progress']),
      )
      .execute()
  ).map((row) => row.job_id);
  for (const jobId of ended) await clearStagedPages(storage, jobId);
}
