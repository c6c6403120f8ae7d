import type { Logger } from 'pino';
import { runIngestionJob } from '../ingest/ingest-site.ts';
import { createIngestionJob, type IngestionJob } from '../ingest/jobs.ts';
import type { Storage } from '../storage/database.ts';

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
 * Runs ingestions in the background of this process, one at a time per site. A server shutting down
 * waits for running jobs (`idle`) so a job is not cut off between its writes.
 */
export class IngestionRunner {
  readonly #running = new Map<string, { jobId: string; done: Promise<void> }>();
  readonly #settled: ((outcome: IngestionOutcome) => void)[] = [];
  /** Files read so far of each job running here, for a live progress display. */
  readonly #progress = new Map<string, { done: number; total: number }>();

  /** `instanceId`: this server's registered instance, recorded on each job it runs (crash recovery). */
  constructor(
    private readonly logger?: Logger,
    private readonly instanceId: string | null = null,
  ) {}

  async start(storage: Storage, siteId: string, docsDir: string): Promise<IngestionJob> {
    const current = this.#running.get(siteId);
    if (current) throw new IngestionBusyError(current.jobId);
    // Reserved before the first await, so two concurrent starts cannot both pass the check above.
    const entry = { jobId: '(starting)', done: Promise.resolve() };
    this.#running.set(siteId, entry);
    let job: IngestionJob;
    try {
      job = await createIngestionJob(storage, siteId, docsDir, this.instanceId);
    } catch (error) {
      this.#running.delete(siteId);
      throw error;
    }
    entry.jobId = job.id;
    const started = performance.now();
    let status: IngestionOutcome['status'] = 'failure';
    entry.done = runIngestionJob(storage, job, {
      onProgress: (done, total) => this.#progress.set(job.id, { done, total }),
    })
      .then(
        (result) => {
          status = 'success';
          this.logger?.info({ jobId: job.id, ...result.counts }, 'ingestion finished');
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
      });
    return job;
  }

  /** Files read so far of a job running in this process; undefined for any other job. */
  progress(jobId: string): { done: number; total: number } | undefined {
    return this.#progress.get(jobId);
  }

  /** Calls `listener` after each ingestion ends, finished or failed (caches of site rows listen). */
  onSettled(listener: (outcome: IngestionOutcome) => void): void {
    this.#settled.push(listener);
  }

  async idle(): Promise<void> {
    await Promise.all([...this.#running.values()].map((r) => r.done));
  }
}
