import type { Thread } from '../assistant/threads.ts';
import type { Storage } from '../storage/database.ts';

/** Most threads one listing returns. */
export const MAX_THREADS_PAGE = 100;

export interface ThreadListing {
  thread: Thread;
  domain: string;
  messageCount: number;
}

/** Where a page of threads ends: the last thread's activity time and id (the listing's sort key). */
export interface ThreadPosition {
  updatedAt: string;
  id: string;
}

/**
 * Threads of one organization, newest activity first, a page at a time: `after` (the previous page's
 * `next`) continues exactly where it ended, threads active in the same millisecond included; `before`
 * (older clients' paging) keeps only threads last active before a time.
 */
export async function listOrganizationThreads(
  storage: Storage,
  organizationId: string,
  options: { siteId?: string; limit: number; before?: string; after?: ThreadPosition },
): Promise<{ threads: ThreadListing[]; next: ThreadPosition | null }> {
  const limit = Math.max(1, Math.min(options.limit, MAX_THREADS_PAGE));
  let query = storage.db
    .selectFrom('threads')
    .innerJoin('sites', 'sites.id', 'threads.site_id')
    .selectAll('threads')
    .select('sites.domain')
    .select((eb) =>
      eb
        .selectFrom('thread_messages')
        .select((inner) => inner.fn.countAll().as('n'))
        .whereRef('thread_messages.thread_id', '=', 'threads.id')
        .as('message_count'),
    )
    .where('threads.organization_id', '=', organizationId)
    .orderBy('threads.updated_at', 'desc')
    .orderBy('threads.id', 'desc')
    // One more than the page: whether there is a next page, without an empty last one.
    .limit(limit + 1);
  if (options.siteId !== undefined) query = query.where('threads.site_id', '=', options.siteId);
  if (options.before !== undefined) query = query.where('threads.updated_at', '<', options.before);
  const after = options.after;
  if (after !== undefined)
    query = query.where((eb) =>
      eb.or([
        eb('threads.updated_at', '<', after.updatedAt),
        eb.and([eb('threads.updated_at', '=', after.updatedAt), eb('threads.id', '<', after.id)]),
      ]),
    );
  const rows = await query.execute();
  const threads = rows.slice(0, limit).map(({ domain, message_count, ...thread }) => ({
    thread,
    domain,
    messageCount: Number(message_count ?? 0),
  }));
  const last = threads.at(-1)?.thread;
  return {
    threads,
    next: rows.length > limit && last ? { updatedAt: last.updated_at, id: last.id } : null,
  };
}

/** One thread of this organization; another organization's thread is indistinguishable from none. */
export async function getOrganizationThread(
  storage: Storage,
  organizationId: string,
  threadId: string,
): Promise<{ thread: Thread; domain: string } | undefined> {
  const row = await storage.db
    .selectFrom('threads')
    .innerJoin('sites', 'sites.id', 'threads.site_id')
    .selectAll('threads')
    .select('sites.domain')
    .where('threads.organization_id', '=', organizationId)
    .where('threads.id', '=', threadId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { domain, ...thread } = row;
  return { thread, domain };
}
