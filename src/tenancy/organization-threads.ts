import type { Thread } from '../assistant/threads.ts';
import type { Storage } from '../storage/database.ts';

/** Most threads one listing returns. */
export const MAX_THREADS_PAGE = 100;

export interface ThreadListing {
  thread: Thread;
  domain: string;
  messageCount: number;
}

/** Threads of one organization, newest activity first; `before` pages by `updated_at`. */
export async function listOrganizationThreads(
  storage: Storage,
  organizationId: string,
  options: { siteId?: string; limit: number; before?: string },
): Promise<ThreadListing[]> {
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
    .limit(Math.min(options.limit, MAX_THREADS_PAGE));
  if (options.siteId !== undefined) query = query.where('threads.site_id', '=', options.siteId);
  if (options.before !== undefined) query = query.where('threads.updated_at', '<', options.before);
  const rows = await query.execute();
  return rows.map(({ domain, message_count, ...thread }) => ({
    thread,
    domain,
    messageCount: Number(message_count ?? 0),
  }));
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
