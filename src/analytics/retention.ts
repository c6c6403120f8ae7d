/**
 * Retention: an organization may have its conversations deleted once they have been idle (no new
 * question) for a number of days. A background job in every server process deletes what has expired,
 * every organization, in small batches so no transaction holds the database long.
 */
import type { Logger } from 'pino';
import { DomainError } from '../errors/domain-error.ts';
import type { Storage } from '../storage/database.ts';
import { logJobFailure, type OutageLog } from '../storage/outage-log.ts';
import { relabelGroups } from './question-groups-upkeep.ts';

/** Retention in days an organization may set: a day to ten years (null keeps everything). */
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 3650;
/** Threads deleted per transaction. */
export const RETENTION_BATCH = 500;
/** How often the job runs by default: retention is in days, so an hour late is nothing. */
export const RETENTION_INTERVAL_MS = 3_600_000;
/** The first run waits this long after start, so it never competes with a server's start-up. */
const FIRST_RUN_DELAY_MS = 60_000;

const DAY_MS = 86_400_000;

export async function setRetentionDays(
  storage: Storage,
  organizationId: string,
  days: number | null,
): Promise<void> {
  if (days !== null && (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS))
    throw new DomainError(
      'invalid_input',
      `Retention is a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, or null`,
    );
  const updated = await storage.db
    .updateTable('organizations')
    .set({ retention_days: days })
    .where('id', '=', organizationId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) throw new DomainError('not_found', 'No such organization');
}

export async function getRetentionDays(storage: Storage, organizationId: string): Promise<number | null> {
  const row = await storage.db
    .selectFrom('organizations')
    .select('retention_days')
    .where('id', '=', organizationId)
    .executeTakeFirst();
  if (row === undefined) throw new DomainError('not_found', 'No such organization');
  return row.retention_days === null || row.retention_days === undefined ? null : Number(row.retention_days);
}

/**
 * Deletes, for every organization with a retention, its threads last active before `now` minus that
 * many days (their messages and votes go with them), then relabels or deletes the groups that held their
 * questions. Returns how many threads were deleted.
 */
export async function deleteExpiredThreads(storage: Storage, now: Date = new Date()): Promise<number> {
  const organizations = await storage.db
    .selectFrom('organizations')
    .select(['id', 'retention_days'])
    .where('retention_days', 'is not', null)
    .orderBy('id')
    .execute();
  let deleted = 0;
  for (const org of organizations) {
    const days = Number(org.retention_days);
    if (!(days >= MIN_RETENTION_DAYS)) continue;
    const cutoff = new Date(now.getTime() - days * DAY_MS).toISOString();
    for (;;) {
      const [selected, removed] = await storage.db.transaction().execute(async (trx) => {
        const threads = await trx
          .selectFrom('threads')
          .select('id')
          .where('organization_id', '=', org.id)
          .where('updated_at', '<', cutoff)
          .orderBy('updated_at')
          .limit(RETENTION_BATCH)
          .execute();
        if (threads.length === 0) return [0, 0];
        const ids = threads.map((t) => t.id);
        const groups = await trx
          .selectFrom('thread_messages')
          .select('question_group_id')
          .distinct()
          .where('thread_id', 'in', ids)
          .where('question_group_id', 'is not', null)
          .execute();
        // Counted as deleted, not as selected: another process running the job at the same time can
        // delete them first (its transaction held them; this one's delete then finds them gone).
        // The cutoff again: a follow-up committed since the select (PostgreSQL's READ COMMITTED lets it)
        // made its thread active, and its question must not be deleted with it. The delete re-reads a
        // row another transaction changed, so the condition sees the new `updated_at`.
        const removed = await trx
          .deleteFrom('threads')
          .where('id', 'in', ids)
          .where('updated_at', '<', cutoff)
          .executeTakeFirst();
        await relabelGroups(
          trx,
          groups.map((g) => g.question_group_id).filter((id): id is string => typeof id === 'string'),
        );
        return [ids.length, Number(removed.numDeletedRows)];
      });
      deleted += removed;
      if (selected < RETENTION_BATCH) break;
    }
  }
  return deleted;
}

/**
 * Runs `deleteExpiredThreads` every `intervalMs` (hourly by default), first a minute after start. Its
 * timers never keep the process alive; a failed run is logged and the next one tries again.
 */
export function startRetentionJob(
  storage: Storage,
  logger: Pick<Logger, 'info' | 'error' | 'warn'>,
  /** `outage`: where a lost database is told (once per outage); absent: each failure with its stack. */
  options: { intervalMs?: number; firstRunDelayMs?: number; outage?: OutageLog } = {},
): { stop(): void } {
  let stopped = false;
  let running: Promise<void> | undefined;
  const run = () => {
    if (stopped || running !== undefined) return;
    running = deleteExpiredThreads(storage)
      .then((deleted) => {
        if (deleted > 0) logger.info({ deleted }, 'retention: expired conversations deleted');
      })
      .catch((error: unknown) => {
        if (!stopped)
          logJobFailure(options.outage, logger, error, 'retention: deleting expired conversations');
      })
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(
    run,
    options.firstRunDelayMs ?? Math.min(FIRST_RUN_DELAY_MS, options.intervalMs ?? FIRST_RUN_DELAY_MS),
  );
  const every = setInterval(run, options.intervalMs ?? RETENTION_INTERVAL_MS);
  first.unref();
  every.unref();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
