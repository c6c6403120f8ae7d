import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';

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
  return Number(result.numUpdatedRows);
}
