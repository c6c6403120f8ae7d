import type { Logger } from 'pino';
import { failIngestionJob, listIngestionJobs, unfinishedIngestion } from '../ingest/jobs.ts';
import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';
import { logJobFailure, type OutageLog } from '../storage/outage-log.ts';
import {
  IngestionBusyError,
  IngestionLimitError,
  type IngestionRunner,
} from '../tenancy/ingestion-runner.ts';
import { getSite } from '../tenancy/sites.ts';
import { GIT_QUICK_TIMEOUT_MS } from './git.ts';
import { type GitWorkspace, MissingRemoteRefError, remoteHead } from './git-checkout.ts';
import { createGitIngestionJob } from './git-ingestion.ts';
import {
  claimGitPoll,
  dueGitPolls,
  failedLatestAt,
  type GitSourceRow,
  getGitSource,
  remoteOf,
  usesServerCredentials,
} from './git-sources.ts';

/**
 * A poll that finds the source's branch gone leaves one failed job saying so: the owner reads the site's
 * ingestions, not the server's log, and saw the site stop following its repository with no word why. Not
 * one a poll: while the latest job already says it, nothing is added.
 */
async function reportMissingRef(
  storage: Storage,
  workspace: GitWorkspace,
  source: GitSourceRow,
  error: MissingRemoteRefError,
): Promise<void> {
  // Renamed on the remote is the usual cause: say how to follow the new name.
  const message = `polling: ${error.message}; if it was renamed there, give the site the new name (sites set-git --branch, or git.branch in PATCH /v1/admin/sites/:domain)`;
  const [latest] = await listIngestionJobs(storage, source.site_id, 1);
  if (latest?.status === 'failure' && latest.error === message) return;
  const job = await createGitIngestionJob(storage, workspace, source, null);
  await failIngestionJob(storage, job.id, new Error(message));
}

/** How often a server looks for sources whose poll is due. */
export const GIT_POLL_CHECK_MS = 30_000;

export interface GitPollerOptions {
  checkEveryMs?: number;
  /** The length of a site's `pollMinutes` minute: tests shorten it; servers never set it. */
  minuteMs?: number;
  /** Time one organization's checks may take in a round (default GIT_QUICK_TIMEOUT_MS); tests shorten it. */
  organizationBudgetMs?: number;
}

export interface GitPoller {
  /** Looks for due sources now (also run on the timer); resolves when this round is done. */
  poll(): Promise<void>;
  /** Stops the timer and any `git ls-remote` running, and waits for the round in progress. */
  stop(): Promise<void>;
}

/**
 * Checks sites that asked for polling (`pollMinutes`) with `git ls-remote` and ingests those whose
 * branch moved since the last fetch. With several servers on one database, each due check is claimed
 * by moving its `next_poll_at` (one server's update wins), and a site with an ingestion queued or
 * running anywhere is left for the next round. A claim lasts the site's interval, at least a minute,
 * longer than `git ls-remote` may run (GIT_QUICK_TIMEOUT_MS).
 */
export function startGitPoller(
  /** `outage`: where a lost database is told (once per outage); absent: each failure with its stack. */
  deps: { storage: Storage; ingestions: IngestionRunner; logger: Logger; outage?: OutageLog },
  options: GitPollerOptions = {},
): GitPoller {
  const minuteMs = options.minuteMs ?? 60_000;
  const stopping = new AbortController();
  let round: Promise<void> | undefined;

  const pollSite = async (source: Awaited<ReturnType<typeof dueGitPolls>>[number]): Promise<void> => {
    const git = deps.ingestions.git;
    if (git === null) return;
    const claimed = await claimGitPoll(deps.storage, source, minuteMs);
    if (claimed === null || (await unfinishedIngestion(deps.storage, source.site_id)) !== undefined) return;
    const site = await getSite(deps.storage, source.site_id);
    if (site === undefined) return;
    const head = await remoteHead(
      git,
      {
        siteId: source.site_id,
        organizationId: site.organization_id,
        remote: remoteOf(source),
        branch: source.branch,
        serverCredentials: usesServerCredentials(source, git.serverCredentialsForApiSources),
      },
      stopping.signal,
    ).catch(async (error: unknown) => {
      if (error instanceof MissingRemoteRefError) await reportMissingRef(deps.storage, git, source, error);
      throw error;
    });
    // Read again: another server may have fetched this commit since the due list was read, or, should
    // this check have outlasted the interval, claimed the next one (then that check decides).
    const current = await getGitSource(deps.storage, source.site_id);
    if (!current || current.next_poll_at !== claimed || head === current.checked_out_commit) return;
    if (await failedLatestAt(deps.storage, source.site_id, head)) return;
    if (stopping.signal.aborted || (await unfinishedIngestion(deps.storage, source.site_id)) !== undefined)
      return;
    try {
      const job = await deps.ingestions.startGit(deps.storage, source.site_id);
      deps.logger.info({ siteId: source.site_id, jobId: job.id, head }, 'git source moved: ingesting');
    } catch (error) {
      if (error instanceof IngestionLimitError) {
        // Its organization's other ingestions come first; the next poll looks again.
        deps.logger.info(
          { siteId: source.site_id, head },
          `git source moved, not ingested yet: ${error.message}`,
        );
        return;
      }
      if (!(error instanceof IngestionBusyError)) throw error;
    }
  };

  const budgetMs = options.organizationBudgetMs ?? GIT_QUICK_TIMEOUT_MS;
  const pollOnce = async (): Promise<void> => {
    // Checks run one after another, and the next round waits for this one: an organization whose
    // remotes answer slowly (or never, each check then waits GIT_QUICK_TIMEOUT_MS) held up every other
    // organization's polling by as many checks as it has sources. Once an organization's checks have
    // taken its budget, its other due sources wait for the next round, which takes them first.
    const spent = new Map<string, number>();
    for (const source of await dueGitPolls(deps.storage, nowIso())) {
      if (stopping.signal.aborted) return;
      const used = spent.get(source.organization_id) ?? 0;
      if (used >= budgetMs) continue;
      const started = performance.now();
      // One site's unreachable remote must not hold up the others.
      await pollSite(source).catch((error: unknown) =>
        logJobFailure(
          deps.outage,
          deps.logger,
          error,
          'polling a git source',
          { siteId: source.site_id },
          'warn',
        ),
      );
      spent.set(source.organization_id, used + performance.now() - started);
    }
  };
  const poll = (): Promise<void> => {
    round ??= pollOnce()
      .catch((error: unknown) => logJobFailure(deps.outage, deps.logger, error, 'polling git sources'))
      .finally(() => {
        round = undefined;
      });
    return round;
  };

  const timer = setInterval(() => void poll(), options.checkEveryMs ?? GIT_POLL_CHECK_MS);
  timer.unref();
  return {
    poll,
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await round;
    },
  };
}
