import type { Logger } from 'pino';
import { DomainError } from '../errors/domain-error.ts';
import { type IngestionResult, type IngestOptions, runIngestionJob } from '../ingest/ingest-site.ts';
import { createIngestionJob, type IngestionJob } from '../ingest/jobs.ts';
import type { EmbeddingModel } from '../search/embeddings/embedding-model.ts';
import type { GitWorkspace } from '../sources/git-checkout.ts';
import { createGitIngestionJob, NoGitSourceError, runGitIngestion } from '../sources/git-ingestion.ts';
import { getGitSource } from '../sources/git-sources.ts';
import type { Storage } from '../storage/database.ts';
import { getSite } from './sites.ts';

/** How one background ingestion ended, for listeners (caches, metrics). */
export interface IngestionOutcome {
  status: 'success' | 'failure';
  ms: number;
}

export class IngestionBusyError extends Error {
  override name = 'IngestionBusyError';
  constructor(readonly jobId: string) {
    super(`An ingestion of this site is already running (${jobId})`);
  }
}

/**
 * Ingestions one organization may have running in one server process at once. Each holds a parser
 * worker's time and, for a git source, a git process that may wait minutes on a remote: without a cap
 * one organization's admin could start one per site (hundreds a minute under the admin rate limit).
 */
export const MAX_RUNNING_INGESTIONS_PER_ORGANIZATION = 3;
/** The Retry-After of a refusal: ingestions of a small site take seconds, of a large one minutes. */
const RETRY_AFTER_SECONDS = 30;

export class IngestionLimitError extends DomainError {
  override name = 'IngestionLimitError';
  constructor() {
    super(
      'too_many_running',
      `This organization already has ${MAX_RUNNING_INGESTIONS_PER_ORGANIZATION} ingestions running on this server; start this one when one of them has ended`,
      { retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  }
}

/**
 * Runs ingestions in the background of this process, one at a time per site and at most
 * MAX_RUNNING_INGESTIONS_PER_ORGANIZATION per organization. A server shutting down
 * waits for running jobs (`idle`) so a job is not cut off between its writes.
 */
export class IngestionRunner {
  /** By site; `organizationId` is null until the site's organization has been read (then counted). */
  readonly #running = new Map<
    string,
    { jobId: string; organizationId: string | null; done: Promise<void> }
  >();
  readonly #settled: ((outcome: IngestionOutcome) => void)[] = [];
  /** Files read so far of each job running here, for a live progress display. */
  readonly #progress = new Map<string, { done: number; total: number }>();

  /**
   * `git`: where this process keeps sites' clones and what git may see; null: git sources cannot be
   * ingested here (startGit throws).
   */
  readonly git: GitWorkspace | null;
  /** Sites whose git source was pushed to while an ingestion ran: ingested again once it ends. */
  readonly #again = new Map<string, Storage>();
  /**
   * By organization, sites whose git source was pushed to while the organization had as many
   * ingestions running as it may: each is ingested, oldest push first, when one of them ends.
   */
  readonly #waiting = new Map<string, Map<string, Storage>>();
  /** False once a shutdown dropped the queued runs (cancelQueued): a push after it queues nothing. */
  #queueing = true;

  /**
   * `instanceId`: this server's registered instance, recorded on each job it runs (crash recovery).
   * `embeddings`: computes chunk vectors after each ingestion (`DOCENT_EMBEDDINGS`); null: none.
   */
  constructor(
    private readonly logger?: Logger,
    private readonly instanceId: string | null = null,
    git: GitWorkspace | null = null,
    private readonly embeddings: EmbeddingModel | null = null,
  ) {
    this.git = git;
  }

  /**
   * Ingests a folder in the background; a tenant's (`within`: its organization's folder under
   * DOCENT_DOCS_ROOT) is checked again and pinned when the job begins (pinned-folder.ts).
   */
  async start(
    storage: Storage,
    siteId: string,
    docsDir: string,
    within: string | null = null,
  ): Promise<IngestionJob> {
    return this.#launch(
      siteId,
      () => organizationOf(storage, siteId),
      () => createIngestionJob(storage, siteId, docsDir, this.instanceId),
      (job, options) => runIngestionJob(storage, job, { ...options, within }),
    );
  }

  /** Fetches the site's git source into its clone and ingests it, in the background. */
  async startGit(storage: Storage, siteId: string): Promise<IngestionJob> {
    return this.#startGit(storage, siteId, () => organizationOf(storage, siteId));
  }

  /** startGit; `organization` already known (a run again after a push): counted as the run is reserved. */
  #startGit(
    storage: Storage,
    siteId: string,
    organization: string | (() => Promise<string>),
  ): Promise<IngestionJob> {
    const git = this.git;
    if (git === null) throw new Error('git sources are not set up in this process (no data folder)');
    return this.#launch(
      siteId,
      organization,
      async () => {
        const source = await getGitSource(storage, siteId);
        if (!source) throw new NoGitSourceError();
        return createGitIngestionJob(storage, git, source, this.instanceId);
      },
      (job, options) => runGitIngestion(storage, git, job, options),
    );
  }

  /**
   * startGit, or, while an ingestion of the site runs, once more after it: a push that arrives during
   * a fetch may not be in it. Returns the job started, or the running one the new run will follow.
   */
  async requestGit(
    storage: Storage,
    siteId: string,
  ): Promise<{ jobId: string; after: boolean } | { waiting: true }> {
    try {
      return { jobId: (await this.startGit(storage, siteId)).id, after: false };
    } catch (error) {
      if (error instanceof IngestionLimitError) {
        // A push is not asked again (hosts do not redeliver a refused one): it waits its turn.
        const organizationId = await organizationOf(storage, siteId);
        // A shutdown that began while the site was read has dropped what waited: this push too.
        if (!this.#queueing) return { waiting: true };
        const waiting = this.#waiting.get(organizationId) ?? new Map<string, Storage>();
        this.#waiting.set(organizationId, waiting);
        waiting.set(siteId, storage);
        // One of the organization's runs may have ended while its organization was read.
        this.#startWaiting(organizationId);
        return { waiting: true };
      }
      if (!(error instanceof IngestionBusyError)) throw error;
      if (this.#queueing) this.#again.set(siteId, storage);
      return { jobId: error.jobId, after: true };
    }
  }

  async #launch(
    siteId: string,
    organization: string | (() => Promise<string>),
    create: () => Promise<IngestionJob>,
    run: (job: IngestionJob, options: IngestOptions) => Promise<IngestionResult & { commit?: string }>,
  ): Promise<IngestionJob> {
    const current = this.#running.get(siteId);
    if (current) throw new IngestionBusyError(current.jobId);
    // Reserved before the first await, so two concurrent starts cannot both pass the check above.
    // `done` settles when the job does (or fails to be created): `idle` must wait on the I/O of a job
    // still being created, not spin on an already-resolved promise.
    let settle = (): void => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const entry: { jobId: string; organizationId: string | null; done: Promise<void> } = {
      jobId: '(starting)',
      organizationId: null,
      done,
    };
    this.#running.set(siteId, entry);
    let job: IngestionJob;
    try {
      // Counted once its organization is known, against the entries counted before it: between the
      // read and the count nothing awaits, so two starts of one organization cannot both pass. One
      // known already (a run again after a push) is counted at once, in the slot its site's run left.
      const organizationId = typeof organization === 'string' ? organization : await organization();
      // This entry's organization is still null, so it is not counted against itself.
      this.refuseOverLimit(organizationId);
      entry.organizationId = organizationId;
      job = await create();
    } catch (error) {
      this.#running.delete(siteId);
      // A counted start that failed (a waiting push's site deleted meanwhile) leaves its slot to the
      // organization's next waiting push: no run ending would start it otherwise.
      if (entry.organizationId !== null) this.#startWaiting(entry.organizationId);
      settle();
      throw error;
    }
    entry.jobId = job.id;
    const started = performance.now();
    let status: IngestionOutcome['status'] = 'failure';
    void run(job, {
      onProgress: (done, total) => this.#progress.set(job.id, { done, total }),
      embeddings: this.embeddings,
    })
      .then(
        (result) => {
          status = 'success';
          this.logger?.info(
            { jobId: job.id, ...result.counts, ...(result.commit ? { commit: result.commit } : {}) },
            'ingestion finished',
          );
        },
        // The job row records the failure; the log says it too.
        (error: unknown) => this.logger?.warn({ jobId: job.id, err: error }, 'ingestion failed'),
      )
      .finally(() => {
        this.#running.delete(siteId);
        this.#progress.delete(job.id);
        const outcome = { status, ms: performance.now() - started };
        // One listener failing must neither skip the others (the site cache) nor reject `done`, which
        // nobody awaits but a shutdown: an unhandled rejection would end the process.
        for (const listener of this.#settled) {
          try {
            listener(outcome);
          } catch (error) {
            this.logger?.error({ jobId: job.id, err: error }, 'ingestion listener failed');
          }
        }
        this.#runAgain(siteId, entry.organizationId);
        if (entry.organizationId !== null) this.#startWaiting(entry.organizationId);
      })
      .then(settle);
    return job;
  }

  /**
   * The run a push asked for while the site's run went on (answered 202, `after`). Its organization is
   * known: the run takes the slot the site's run just left before anything else can (a start of the
   * same organization waiting on its read of the site would otherwise be counted first, and this run,
   * already promised, be refused by the cap and dropped).
   */
  #runAgain(siteId: string, organizationId: string | null): void {
    const storage = this.#again.get(siteId);
    if (!storage) return;
    this.#again.delete(siteId);
    this.#startGit(storage, siteId, organizationId ?? (() => organizationOf(storage, siteId))).catch(
      (error: unknown) =>
        this.logger?.warn(
          { siteId, err: error },
          'ingesting a git source again after a push failed to start',
        ),
    );
  }

  /** Starts the organization's waiting pushes, oldest first, while it has ingestion slots free. */
  #startWaiting(organizationId: string): void {
    const waiting = this.#waiting.get(organizationId);
    if (waiting === undefined || !this.#queueing) return;
    for (const [siteId, storage] of waiting) {
      if (this.#runningIn(organizationId) >= MAX_RUNNING_INGESTIONS_PER_ORGANIZATION) return;
      waiting.delete(siteId);
      if (waiting.size === 0) this.#waiting.delete(organizationId);
      if (this.#running.has(siteId)) {
        // Started meanwhile (a poll, an admin): ingested again once that run ends.
        this.#again.set(siteId, storage);
        continue;
      }
      // The organization is known, so the run is counted before this loop looks at the next one.
      this.#startGit(storage, siteId, organizationId).catch((error: unknown) =>
        this.logger?.warn(
          { siteId, err: error },
          'ingesting a git source after a waiting push failed to start',
        ),
      );
    }
  }

  #runningIn(organizationId: string): number {
    let running = 0;
    for (const entry of this.#running.values()) if (entry.organizationId === organizationId) running++;
    return running;
  }

  /**
   * Throws IngestionLimitError when the organization already has as many ingestions running here as it
   * may: for a request that would change something before it starts one (a new docs folder), so that it
   * is refused before the change rather than after it. The start counts again.
   */
  refuseOverLimit(organizationId: string): void {
    if (this.#runningIn(organizationId) >= MAX_RUNNING_INGESTIONS_PER_ORGANIZATION)
      throw new IngestionLimitError();
  }

  /** The job of the site's ingestion running in this process, if one is. */
  runningJob(siteId: string): string | undefined {
    return this.#running.get(siteId)?.jobId;
  }

  /** Files read so far of a job running in this process; undefined for any other job. */
  progress(jobId: string): { done: number; total: number } | undefined {
    return this.#progress.get(jobId);
  }

  /** Calls `listener` after each ingestion ends, finished or failed (caches of site rows listen). */
  onSettled(listener: (outcome: IngestionOutcome) => void): void {
    this.#settled.push(listener);
  }

  /** Waits for the running ingestions, and for those a push queued behind them (its site's or its organization's). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((r) => r.done));
  }

  /**
   * Drops runs queued behind running ones, and queues none after (a server shutting down starts no new
   * work; a push it answers meanwhile is dropped like the ones that waited).
   */
  cancelQueued(): void {
    this.#queueing = false;
    this.#again.clear();
    this.#waiting.clear();
  }
}

/** The organization a site belongs to; a site deleted meanwhile has nothing to ingest. */
async function organizationOf(storage: Storage, siteId: string): Promise<string> {
  const site = await getSite(storage, siteId);
  if (site === undefined) throw new DomainError('not_found', 'The site no longer exists');
  return site.organization_id;
}
