import crypto from 'node:crypto';
import { sql } from 'kysely';
import { DomainError } from '../errors/domain-error.ts';
import { isForeignKeyViolation, siteGoneOr } from '../storage/constraint-violations.ts';
import type { Storage } from '../storage/database.ts';
import { newId, nowIso, randomBase62 } from '../storage/ids.ts';
import { type ParamsOf, precompile } from '../storage/precompiled.ts';
import type { ThreadMessageStatus, ThreadMessagesTable, ThreadsTable } from '../storage/schema.ts';
import { type WriteUnit, withWriteUnit } from '../storage/write-unit.ts';
import { hashKey } from '../tenancy/api-keys.ts';

export type Thread = ThreadsTable;

import type { StoredSource } from './answer-sources.ts';

export type { StoredSource };

export interface NewThread {
  thread: Thread;
  /** Secret handed to the client once (`X-Thread-Key`); only its hash is stored. */
  key: string;
}

const insertThread = precompile<Thread>((db, p) =>
  db.insertInto('threads').values({
    id: p('id'),
    organization_id: p('organization_id'),
    site_id: p('site_id'),
    fp: p('fp'),
    key_hash: p('key_hash'),
    created_at: p('created_at'),
    updated_at: p('updated_at'),
  }),
);

export async function createThread(
  storage: Storage,
  input: { organizationId: string; siteId: string; fp: string },
): Promise<NewThread> {
  return withWriteUnit(storage, {}, (unit) => createThreadWithin(unit, input));
}

/** `createThread` inside the caller's unit (the assistant route charges and creates in one). */
export async function createThreadWithin(
  unit: WriteUnit,
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
  try {
    await unit.run(insertThread, thread);
  } catch (error) {
    throw siteGoneOr(error);
  }
  return { thread, key };
}

/**
 * A thread the caller may continue (a follow-up, a vote on one of its answers): it must belong to this
 * site and fingerprint, and when the caller presents a thread key it must be the thread's. Anything else
 * is `thread_not_found`, worded alike whatever did not match.
 */
export async function requireThreadForFollowUp(
  storage: Storage,
  input: { threadId: string; siteId: string; fp: string; threadKey?: string | null | undefined },
): Promise<Thread> {
  const thread = await findThreadForFollowUp(storage, input);
  if (!thread) {
    throw new DomainError(
      'thread_not_found',
      'No thread with this threadId for this site and fingerprint (or the threadKey does not match)',
    );
  }
  return thread;
}

/** The reader fingerprint of threads the MCP server's `ask_docs` creates over HTTP. */
export const MCP_FP = 'mcp';
/** The same over stdio (`docent mcp`). */
export const STDIO_MCP_FP = 'mcp-stdio';
/**
 * Fingerprints every caller of a channel shares: a thread under one is only the caller's if it holds the
 * thread key, so a thread id alone (from a log, the owner's console) follows up on nothing, whichever
 * route it is sent to.
 */
const SHARED_FINGERPRINTS: ReadonlySet<string> = new Set([MCP_FP, STDIO_MCP_FP]);

async function findThreadForFollowUp(
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
  const key = input.threadKey ?? null;
  if (key === null) return SHARED_FINGERPRINTS.has(input.fp) ? undefined : thread;
  const a = Buffer.from(thread.key_hash, 'hex');
  const b = Buffer.from(hashKey(key), 'hex');
  return crypto.timingSafeEqual(a, b) ? thread : undefined;
}

export interface AppendMessage {
  /** The message's id when the client already has one (an answer's streamed `messageId`); else a new one. */
  id?: string;
  role: 'user' | 'assistant';
  content: string;
  status: ThreadMessageStatus;
  sources?: StoredSource[];
  finishReason?: string | null;
  usage?: { promptTokens: number; completionTokens: number } | null;
  timings?: Record<string, number> | null;
  requestId?: string | null;
  /** A question: the page the reader was on, the filters it was asked with, and its group. */
  currentPath?: string | null;
  filterVersion?: string | null;
  filterLanguage?: string | null;
  questionGroupId?: string | null;
  /** An answer: whether it answered (src/assistant/answered.ts) and its retrieval strength. */
  answered?: boolean | null;
  retrievalScore?: number | null;
}

type MessageRow = Required<ThreadMessagesTable>;
type NewMessageRow = Omit<MessageRow, 'seq'>;

const messageValues = (p: ParamsOf<NewMessageRow>) => ({
  id: p('id'),
  thread_id: p('thread_id'),
  role: p('role'),
  content: p('content'),
  status: p('status'),
  sources: p('sources'),
  finish_reason: p('finish_reason'),
  usage: p('usage'),
  timings: p('timings'),
  request_id: p('request_id'),
  created_at: p('created_at'),
  current_path: p('current_path'),
  filter_version: p('filter_version'),
  filter_language: p('filter_language'),
  question_group_id: p('question_group_id'),
  answered: p('answered'),
  retrieval_score: p('retrieval_score'),
});

/**
 * A question's place is computed inside the INSERT (the read and the write are one statement): after
 * the thread's last message, and one further when that message is a question still waiting for its
 * answer, whose place it keeps.
 */
const insertQuestion = precompile<NewMessageRow, { seq: number }>((db, p) =>
  db
    .insertInto('thread_messages')
    .values({
      ...messageValues(p),
      seq: sql<number>`(select coalesce(max(m.seq), -1) + case when (select l.role from thread_messages l where l.thread_id = ${p('thread_id')} order by l.seq desc limit 1) = 'user' then 2 else 1 end from thread_messages m where m.thread_id = ${p('thread_id')})`,
    })
    .returning('seq'),
);

/** An answer in its question's place; nothing when the place is taken. */
const insertAnswer = precompile<MessageRow, { id: string }>((db, p) =>
  db
    .insertInto('thread_messages')
    .values({ ...messageValues(p), seq: p('seq') })
    .onConflict((oc) => oc.doNothing())
    .returning('id'),
);

const deleteAnswerAt = precompile<{ threadId: string; seq: number }>((db, p) =>
  db
    .deleteFrom('thread_messages')
    .where('thread_id', '=', p('threadId'))
    .where('seq', '=', p('seq'))
    .where('role', '=', 'assistant'),
);

const selectAt = precompile<
  { threadId: string; seq: number },
  { id: string; role: string; request_id: string | null; content: string }
>((db, p) =>
  db
    .selectFrom('thread_messages')
    .select(['id', 'role', 'request_id', 'content'])
    .where('thread_id', '=', p('threadId'))
    .where('seq', '=', p('seq')),
);

/**
 * The votes on an answer about to be replaced stay (the owner's signal that it did not help): they keep
 * its text and point at the answer taking its place, which links them to their question. Votes it had
 * kept from answers it replaced itself follow the place too.
 */
const keepVotesOfReplaced = precompile<{ threadId: string; oldId: string; newId: string; content: string }>(
  (db, p) =>
    db
      .updateTable('message_feedback')
      .set({ replaced_by: p('newId'), replaced_answer: p('content') })
      .where('thread_id', '=', p('threadId'))
      .where('message_id', '=', p('oldId')),
);
const moveKeptVotes = precompile<{ threadId: string; oldId: string; newId: string }>((db, p) =>
  db
    .updateTable('message_feedback')
    .set({ replaced_by: p('newId') })
    .where('thread_id', '=', p('threadId'))
    .where('replaced_by', '=', p('oldId')),
);

const selectThreadId = precompile<{ id: string }, { id: string }>((db, p) =>
  db.selectFrom('threads').select('id').where('id', '=', p('id')),
);

/**
 * PostgreSQL: the thread's row, locked, so that two answers to one question (or an answer and the
 * thread's deletion) are stored one after the other: otherwise one's DELETE misses the other's insert
 * not yet committed. SQLite's units already run one at a time.
 */
const lockThreadId = precompile<{ id: string }, { id: string }>((db, p) =>
  db.selectFrom('threads').select('id').where('id', '=', p('id')).forUpdate(),
);

/**
 * Inside the caller's unit, whether the thread still exists; on PostgreSQL its row is locked too, so the
 * unit runs after (or before) an answer being stored in it, never beside it (SQLite's units are serial).
 */
export async function lockThreadWithin(unit: WriteUnit, threadId: string): Promise<boolean> {
  const lock = unit.dialect === 'postgres' ? lockThreadId : selectThreadId;
  return (await unit.get(lock, { id: threadId })) !== undefined;
}

const touchThread = precompile<{ id: string; updatedAt: string }>((db, p) =>
  db
    .updateTable('threads')
    .set({ updated_at: p('updatedAt') })
    .where('id', '=', p('id')),
);

/** A question as stored, with its place: its answer's is the next (`seq + 1`). */
export interface StoredQuestion {
  id: string;
  seq: number;
  content: string;
}

/**
 * Appends a question inside the caller's unit, which serialises appends to the thread (the charge's
 * organization lock); `touch: false` leaves the thread's `updated_at` (its place in listings by recent
 * activity) alone, which spares rewriting two index entries.
 */
export async function appendQuestionWithin(
  unit: WriteUnit,
  threadId: string,
  message: Omit<AppendMessage, 'role'>,
  options: { touch?: boolean } = {},
): Promise<StoredQuestion> {
  const row = messageRow(threadId, { ...message, role: 'user' });
  let stored: { seq: number } | undefined;
  try {
    stored = await unit.get(insertQuestion, row);
  } catch (error) {
    // Deleted since the caller found it (the admin API, retention, the site's deletion).
    if (isForeignKeyViolation(error))
      throw new DomainError('thread_not_found', 'This thread was deleted', { cause: error });
    throw error;
  }
  if (stored === undefined) throw new Error(`thread ${threadId}: the question was not stored`);
  if (options.touch ?? true) await unit.run(touchThread, { id: threadId, updatedAt: row.created_at });
  return { id: row.id, seq: Number(stored.seq), content: message.content };
}

/** What became of an answer to store: in its place, or not, and why not. */
export type AnswerStored =
  | 'stored'
  /** The place holds the answer of a newer request for the same question (a regenerate), which stays. */
  | 'superseded'
  /** The thread was deleted while it was answered. */
  | 'thread-gone'
  /** Something else holds the place (a question stored by an older Docent that appended at the end). */
  | 'place-taken';

/**
 * Stores an answer in its question's place (`questionSeq + 1`), whenever it ends: answers to concurrent
 * follow-ups on one thread each stay after their own question. Of several answers to one question (a
 * regenerate, "stop, then try again", crash recovery's placeholder), the newest request's stays,
 * whichever ends last: an answer replaces the one in its place when that one's request is no newer
 * than its own, and is not stored otherwise. Nothing is stored when the thread was deleted meanwhile.
 */
export async function storeAnswerWithin(
  unit: WriteUnit,
  threadId: string,
  questionSeq: number,
  message: Omit<AppendMessage, 'role'>,
): Promise<AnswerStored> {
  if (!(await lockThreadWithin(unit, threadId))) return 'thread-gone';
  const seq = questionSeq + 1;
  const row = { ...messageRow(threadId, { ...message, role: 'assistant' }), seq };
  // Nearly always the place is free: one insert. Taken, the answer there goes if its request is older.
  if ((await unit.get(insertAnswer, row)) !== undefined) return 'stored';
  const there = await unit.get(selectAt, { threadId, seq });
  if (there?.role !== 'assistant') return 'place-taken';
  if (there.request_id !== null && there.request_id > (message.requestId ?? '')) return 'superseded';
  // The same id is the same answer stored again (crash recovery's placeholder, then the answer its
  // instance, taken for dead, delivered after all): its votes stay as they are.
  if (there.id !== row.id) {
    const moved = { threadId, oldId: there.id, newId: row.id };
    await unit.run(moveKeptVotes, moved);
    await unit.run(keepVotesOfReplaced, { ...moved, content: there.content });
  }
  await unit.run(deleteAnswerAt, { threadId, seq });
  return (await unit.get(insertAnswer, row)) !== undefined ? 'stored' : 'superseded';
}

function messageRow(threadId: string, message: AppendMessage): NewMessageRow {
  return {
    id: message.id ?? newId('msg'),
    thread_id: threadId,
    role: message.role,
    content: message.content,
    status: message.status,
    sources: JSON.stringify(message.sources ?? []),
    finish_reason: message.finishReason ?? null,
    usage: message.usage ? JSON.stringify(message.usage) : null,
    timings: message.timings ? JSON.stringify(message.timings) : null,
    request_id: message.requestId ?? null,
    created_at: nowIso(),
    current_path: message.currentPath ?? null,
    filter_version: message.filterVersion ?? null,
    filter_language: message.filterLanguage ?? null,
    question_group_id: message.questionGroupId ?? null,
    answered: message.answered === undefined || message.answered === null ? null : message.answered ? 1 : 0,
    retrieval_score: message.retrievalScore ?? null,
  };
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
  /** Questions: the page the reader was on and the filters asked with (null when not sent or older). */
  currentPath: string | null;
  version: string | null;
  language: string | null;
  /** Answers: whether it answered, and its retrieval strength (null: stored before these were kept). */
  answered: boolean | null;
  retrievalScore: number | null;
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
    currentPath: row.current_path ?? null,
    version: row.filter_version ?? null,
    language: row.filter_language ?? null,
    answered: row.answered === null || row.answered === undefined ? null : Number(row.answered) === 1,
    retrievalScore:
      row.retrieval_score === null || row.retrieval_score === undefined ? null : Number(row.retrieval_score),
  }));
}

/** The question a request stored in the thread; undefined when it stored none (a regenerate). */
export async function questionOfRequestWithin(
  unit: WriteUnit,
  threadId: string,
  requestId: string,
): Promise<StoredQuestion | undefined> {
  const question = await unit.db
    .selectFrom('thread_messages')
    .select(['id', 'seq', 'content'])
    .where('thread_id', '=', threadId)
    .where('request_id', '=', requestId)
    .where('role', '=', 'user')
    .executeTakeFirst();
  return question === undefined ? undefined : { ...question, seq: Number(question.seq) };
}

/** The thread's last question, which a regenerated answer answers again; undefined when it has none. */
export async function lastQuestionWithin(
  unit: WriteUnit,
  threadId: string,
): Promise<StoredQuestion | undefined> {
  const question = await unit.db
    .selectFrom('thread_messages')
    .select(['id', 'seq', 'content'])
    .where('thread_id', '=', threadId)
    .where('role', '=', 'user')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return question === undefined ? undefined : { ...question, seq: Number(question.seq) };
}
