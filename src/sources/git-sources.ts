import crypto from 'node:crypto';
import { sql } from 'kysely';
import { INTERRUPTED_INGESTION_ERROR } from '../ingest/recover-interrupted-ingestions.ts';
import { siteGoneOr } from '../storage/constraint-violations.ts';
import type { Storage } from '../storage/database.ts';
import { nowIso, randomBase62 } from '../storage/ids.ts';
import type { GitSourceSetBy, SiteGitSourcesTable } from '../storage/schema.ts';
import { type GitRemote, parseGitUrl, redactGitUrl } from './git-url.ts';

export type GitSourceRow = SiteGitSourcesTable;

/** Webhook secrets start with this, so one found in a log or a paste says what it is. */
export const HOOK_SECRET_PREFIX = 'dhk_';
/** Random base62 characters after the prefix (about 238 bits). */
const HOOK_SECRET_CHARS = 40;

/** Shortest and longest polling interval a site may ask for, in minutes. */
export const MIN_POLL_MINUTES = 1;
export const MAX_POLL_MINUTES = 7 * 24 * 60;

export function newHookSecret(): string {
  return `${HOOK_SECRET_PREFIX}${randomBase62(HOOK_SECRET_CHARS)}`;
}

/** The stored URL as git is given it (it was checked when stored; CLI-stored local paths stay local). */
export function remoteOf(source: Pick<GitSourceRow, 'url'>): GitRemote {
  return parseGitUrl(source.url, { allowLocal: true });
}

export interface GitSourceView {
  url: string;
  branch: string | null;
  subdir: string;
  pollMinutes: number | null;
  commit: string | null;
}

/** What admins see of a source: never the secret, and the URL with any password or token hidden. */
export function gitSourceView(source: GitSourceRow): GitSourceView {
  return {
    url: redactGitUrl(source.url),
    branch: source.branch,
    subdir: source.subdir,
    pollMinutes: source.poll_minutes === null ? null : Number(source.poll_minutes),
    commit: source.checked_out_commit,
  };
}

export async function getGitSource(storage: Storage, siteId: string): Promise<GitSourceRow | undefined> {
  return storage.db
    .selectFrom('site_git_sources')
    .selectAll()
    .where('site_id', '=', siteId)
    .executeTakeFirst();
}

/** The git sources of these sites, by site id (one query: a listing shows every site's). */
export async function getGitSources(
  storage: Storage,
  siteIds: readonly string[],
): Promise<Map<string, GitSourceRow>> {
  if (siteIds.length === 0) return new Map();
  const rows = await storage.db
    .selectFrom('site_git_sources')
    .selectAll()
    .where('site_id', 'in', siteIds)
    .execute();
  return new Map(rows.map((row) => [row.site_id, row]));
}

export interface GitSourceInput {
  /** Already checked (parseGitUrl) and, for local paths, resolved by the caller. */
  url: string;
  branch: string | null;
  subdir: string;
  pollMinutes: number | null;
  /** The operator (CLI) or an organization's admin (API): decides whose credentials git may use. */
  setBy: GitSourceSetBy;
}

/**
 * Whether git may use the server user's own credentials (ssh keys and agent, credential helpers,
 * `.netrc`) for this source: when the operator set it from the CLI, or for every source when the
 * operator allows it (`DOCENT_GIT_API_CREDENTIALS=server`). A source an organization's admin set over the
 * API otherwise gets none: on a shared server it could name any repository those credentials reach.
 */
export function usesServerCredentials(source: Pick<GitSourceRow, 'set_by'>, apiSourcesToo: boolean): boolean {
  return source.set_by === 'cli' || apiSourcesToo;
}

function nextPollAt(pollMinutes: number | null, minuteMs: number, from = Date.now()): string | null {
  return pollMinutes === null ? null : new Date(from + pollMinutes * minuteMs).toISOString();
}

/**
 * Sets a site's git source, keeping its webhook secret when it had one. Returns the secret only when
 * it is new (the one time it is shown). The site's docs folder is cleared: a site reads one source.
 */
export async function setGitSource(
  storage: Storage,
  siteId: string,
  input: GitSourceInput,
): Promise<{ source: GitSourceRow; newSecret: string | null }> {
  const now = nowIso();
  return storage.db.transaction().execute(async (trx) => {
    // The site's row first: its lock makes a concurrent setting of the source wait, then read the
    // source that one wrote (PostgreSQL reads each statement afresh). Read first, both found none and
    // both inserted, the second a unique violation (a 500).
    await trx.updateTable('sites').set({ docs_dir: null }).where('id', '=', siteId).execute();
    const existing = await trx
      .selectFrom('site_git_sources')
      .selectAll()
      .where('site_id', '=', siteId)
      .executeTakeFirst();
    const changedRemote =
      existing !== undefined && (existing.url !== input.url || existing.branch !== input.branch);
    const fields = {
      url: input.url,
      branch: input.branch,
      subdir: input.subdir,
      poll_minutes: input.pollMinutes,
      set_by: input.setBy,
      // Due at once: the poller's first look compares the remote with what the first ingestion fetched.
      next_poll_at: input.pollMinutes === null ? null : now,
      updated_at: now,
      // Another repository or branch: the next poll must not take its commit for the one checked out.
      ...(changedRemote ? { checked_out_commit: null } : {}),
    };
    if (existing) {
      await trx.updateTable('site_git_sources').set(fields).where('site_id', '=', siteId).execute();
      return { source: { ...existing, ...fields }, newSecret: null };
    }
    const row: GitSourceRow = {
      site_id: siteId,
      ...fields,
      hook_secret: newHookSecret(),
      checked_out_commit: null,
      created_at: now,
    };
    try {
      await trx.insertInto('site_git_sources').values(row).execute();
    } catch (error) {
      throw siteGoneOr(error);
    }
    return { source: row, newSecret: row.hook_secret };
  });
}

export async function deleteGitSource(storage: Storage, siteId: string): Promise<boolean> {
  const result = await storage.db
    .deleteFrom('site_git_sources')
    .where('site_id', '=', siteId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A new webhook secret for the site (the old one stops working at once); undefined: no git source. */
export async function rotateHookSecret(storage: Storage, siteId: string): Promise<string | undefined> {
  const secret = newHookSecret();
  const result = await storage.db
    .updateTable('site_git_sources')
    .set({ hook_secret: secret, updated_at: nowIso() })
    .where('site_id', '=', siteId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0 ? secret : undefined;
}

/** After a fetch: the commit now in the clone, and the branch when the source left it to the remote. */
export async function recordCheckout(
  storage: Storage,
  siteId: string,
  checkout: { commit: string; branch: string | null },
): Promise<void> {
  await storage.db
    .updateTable('site_git_sources')
    .set({ checked_out_commit: checkout.commit })
    .where('site_id', '=', siteId)
    .execute();
  if (checkout.branch !== null)
    await storage.db
      .updateTable('site_git_sources')
      .set({ branch: checkout.branch })
      .where('site_id', '=', siteId)
      .where('branch', 'is', null)
      .execute();
}

/** The folder and commit a git ingestion reads, on its job row (known only once the fetch is done). */
export async function recordJobCheckout(
  storage: Storage,
  jobId: string,
  checkout: { docsDir: string; commit: string },
): Promise<void> {
  await storage.db
    .updateTable('ingestion_jobs')
    .set({ source_dir: checkout.docsDir, commit_sha: checkout.commit })
    .where('id', '=', jobId)
    .execute();
}

export async function jobCommit(storage: Storage, jobId: string): Promise<string | null> {
  const row = await storage.db
    .selectFrom('ingestion_jobs')
    .select('commit_sha')
    .where('id', '=', jobId)
    .executeTakeFirst();
  return row?.commit_sha ?? null;
}

/**
 * Whether the site's latest ingestion of `commit` failed: a poll does not try that commit again (a docs
 * folder emptied would fail every minute, and fill the site's job list); a push, a new commit or a
 * re-ingestion started by hand does. An ingestion interrupted by its process stopping
 * (recover-interrupted-ingestions.ts) says nothing of the commit, and the push that started it is not
 * sent again: the poll tries it once more. Interrupted twice in a row at that commit, the commit may be
 * what stops the process (a page that exhausts it), and it waits like any failure.
 */
export async function failedLatestAt(storage: Storage, siteId: string, commit: string): Promise<boolean> {
  const [latest, before] = await storage.db
    .selectFrom('ingestion_jobs')
    .select(['status', 'commit_sha', 'error'])
    .where('site_id', '=', siteId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(2)
    .execute();
  const failedAt = (job: typeof latest): boolean => job?.status === 'failure' && job.commit_sha === commit;
  if (!failedAt(latest)) return false;
  if (latest?.error !== INTERRUPTED_INGESTION_ERROR) return true;
  return failedAt(before) && before?.error === INTERRUPTED_INGESTION_ERROR;
}

/** A due source, with the organization its site belongs to. */
export type DueGitPoll = GitSourceRow & { organization_id: string };

/**
 * Sources whose poll is due at `now`: each organization's oldest due source, then each one's second,
 * and so on, oldest first within a turn. Oldest first alone let one organization's many due sources fill
 * the list (and the poller's round) ahead of every other organization's.
 */
export async function dueGitPolls(storage: Storage, now: string, limit = 100): Promise<DueGitPoll[]> {
  const due = storage.db
    .selectFrom('site_git_sources')
    .innerJoin('sites', 'sites.id', 'site_git_sources.site_id')
    .selectAll('site_git_sources')
    .select('sites.organization_id')
    .select(
      sql<number>`row_number() over (partition by sites.organization_id order by site_git_sources.next_poll_at, site_git_sources.site_id)`.as(
        'turn',
      ),
    )
    .where('site_git_sources.poll_minutes', 'is not', null)
    .where('site_git_sources.next_poll_at', '<=', now);
  const rows = await storage.db
    .selectFrom(due.as('due'))
    .selectAll()
    .orderBy('turn')
    .orderBy('next_poll_at')
    .orderBy('site_id')
    .limit(limit)
    .execute();
  return rows.map(({ turn: _turn, ...row }) => row);
}

/**
 * Claims one due poll for this process by moving its `next_poll_at` from the value it was read with:
 * of several servers sharing the database, only the one whose update matched runs this check. Returns
 * the new `next_poll_at` (the claim holds while the row still has it), or null when another won.
 */
export async function claimGitPoll(
  storage: Storage,
  source: Pick<GitSourceRow, 'site_id' | 'next_poll_at' | 'poll_minutes'>,
  minuteMs: number,
): Promise<string | null> {
  if (source.next_poll_at === null || source.poll_minutes === null) return null;
  const next = nextPollAt(Number(source.poll_minutes), minuteMs) as string;
  const result = await storage.db
    .updateTable('site_git_sources')
    .set({ next_poll_at: next })
    .where('site_id', '=', source.site_id)
    .where('next_poll_at', '=', source.next_poll_at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1 ? next : null;
}

/**
 * Whether `input` names the repository, branch and folder the site reads already (its polling interval
 * aside): such a change touches nothing an ingestion reads. A left-out branch is the one learnt.
 */
export function sameGitPlace(input: GitSourceInput, current: GitSourceRow | undefined): boolean {
  return (
    current !== undefined &&
    input.url === current.url &&
    input.subdir === current.subdir &&
    (input.branch === null || input.branch === current.branch)
  );
}

/**
 * Compares a presented secret with the stored one in constant time (both hashed first, so their
 * lengths never show either).
 */
export function secretsMatch(presented: string, stored: string): boolean {
  const a = crypto.createHash('sha256').update(presented).digest();
  const b = crypto.createHash('sha256').update(stored).digest();
  return crypto.timingSafeEqual(a, b);
}
