import crypto from 'node:crypto';
import type { Storage } from '../storage/database.ts';
import { newId, nowIso, randomBase62 } from '../storage/ids.ts';
import type { ThreadMessageStatus, ThreadsTable } from '../storage/schema.ts';
import { hashKey } from '../tenancy/api-keys.ts';

export type Thread = ThreadsTable;

export interface StoredSource {
  id: string;
  url: string;
  title: string;
  path: string;
}

export interface NewThread {
  thread: Thread;
  /** Secret handed to the client once (`X-Thread-Key`); only its hash is stored. */
  key: string;
}

export async function createThread(
  storage: Storage,
  input: { organizationId: string; siteId: string; fp: string },
): Promise<NewThread> {
  const key = `thk_${randomBase62(32)}`;
  const now = nowIso();
  const thread: Thread = {
    id: newId('thr'),
    organization_id: input.organizationId,
    site_id: input.siteId,
    fp: input.fp,
    key_hash: hashKey(key),
    created_at: now,
    updated_at: now,
  };
  await storage.db.insertInto('threads').values(thread).execute();
  return { thread, key };
}

/**
 * A thread the caller may continue: it must belong to this site and fingerprint, and when the caller
 * presents a thread key it must be the thread's. Anything else looks exactly like "no such thread".
 */
export async function findThreadForFollowUp(
  storage: Storage,
  input: { threadId: string; siteId: string; fp: string; threadKey?: string | null | undefined },
): Promise<Thread | undefined> {
  const thread = await storage.db
    .selectFrom('threads')
    .selectAll()
    .where('id', '=', input.threadId)
    .where('site_id', '=', input.siteId)
    .where('fp', '=', input.fp)
    .executeTakeFirst();
  if (!thread) return undefined;
  if (input.threadKey !== undefined && input.threadKey !== null) {
    const a = Buffer.from(thread.key_hash, 'hex');
    const b = Buffer.from(hashKey(input.threadKey), 'hex');
    if (!crypto.timingSafeEqual(a, b)) return undefined;
  }
  return thread;
}

export interface AppendMessage {
  role: 'user' | 'assistant';
  content: string;
  status: ThreadMessageStatus;
  sources?: StoredSource[];
  finishReason?: string | null;
  usage?: { promptTokens: number; completionTokens: number } | null;
  timings?: Record<string, number> | null;
  requestId?: string | null;
}

/**
 * Appends with the next sequence number, computed inside the INSERT so the read and the write are one
 * statement; the unique (thread, seq) index turns a race between two appends into a retry.
 */
export async function appendThreadMessage(
  storage: Storage,
  threadId: string,
  message: AppendMessage,
): Promise<string> {
  const createdAt = nowIso();
  for (let attempt = 0; ; attempt++) {
    const id = newId('msg');
    try {
      await storage.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('thread_messages')
          .values({
            id,
            thread_id: threadId,
            seq: (eb) =>
              eb
                .selectFrom('thread_messages')
                .select((sub) =>
                  sub(sub.fn.coalesce(sub.fn.max('seq'), sub.lit(-1)), '+', sub.lit(1)).as('next'),
                )
                .where('thread_id', '=', threadId),
            role: message.role,
            content: message.content,
            status: message.status,
            sources: JSON.stringify(message.sources ?? []),
            finish_reason: message.finishReason ?? null,
            usage: message.usage ? JSON.stringify(message.usage) : null,
            timings: message.timings ? JSON.stringify(message.timings) : null,
            request_id: message.requestId ?? null,
            created_at: createdAt,
          })
          .execute();
        await trx.updateTable('threads').set({ updated_at: createdAt }).where('id', '=', threadId).execute();
      });
      return id;
    } catch (error) {
      if (attempt >= MAX_APPEND_ATTEMPTS || !isUniqueViolation(error)) throw error;
    }
  }
}

/** Concurrent appends to one thread are rare (one reader, one conversation); a few retries settle them. */
const MAX_APPEND_ATTEMPTS = 5;

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  // PostgreSQL unique_violation, SQLite SQLITE_CONSTRAINT_UNIQUE.
  return (
    e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/i.test(e.message ?? '')
  );
}

export interface ThreadMessage {
  id: string;
  seq: number;
  role: 'user' | 'assistant';
  content: string;
  status: ThreadMessageStatus;
  sources: StoredSource[];
  finishReason: string | null;
  usage: { promptTokens: number; completionTokens: number } | null;
  timings: Record<string, number> | null;
  requestId: string | null;
  createdAt: string;
}

export async function listThreadMessages(storage: Storage, threadId: string): Promise<ThreadMessage[]> {
  const rows = await storage.db
    .selectFrom('thread_messages')
    .selectAll()
    .where('thread_id', '=', threadId)
    .orderBy('seq')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    seq: row.seq,
    role: row.role,
    content: row.content,
    status: row.status,
    sources: JSON.parse(row.sources) as StoredSource[],
    finishReason: row.finish_reason,
    usage: row.usage ? JSON.parse(row.usage) : null,
    timings: row.timings ? JSON.parse(row.timings) : null,
    requestId: row.request_id,
    createdAt: row.created_at,
  }));
}
