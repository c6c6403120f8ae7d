import type { Logger } from 'pino';
import { runIngestionJob } from '../ingest/ingest-site.ts';
import { createIngestionJob, type IngestionJob } from '../ingest/jobs.ts';
import type { Storage } from '../storage/database.ts';

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
  readonly #settled: (() => void)[] = [];

  constructor(private readonly logger?: Logger) {}

  async start(storage: Storage, siteId: string, docsDir: string): Promise<IngestionJob> {
    const current = this.#running.get(siteId);
    if (current) throw new IngestionBusyError(current.jobId);
    // Reserved before the first await, so two concurrent starts cannot both pass the check above.
    const entry = { jobId: '(starting)', done: Promise.resolve() };
    this.#running.set(siteId, entry);
    let job: IngestionJob;
    try {
      job = await createIngestionJob(storage, siteId, docsDir);
    } catch (error) {
      this.#running.delete(siteId);
      throw error;
    }
    entry.jobId = job.id;
    entry.done = runIngestionJob(storage, job)
      .then(
        (result) => this.logger?.info({ jobId: job.id, ...result.counts }, 'ingestion finished'),
        // The job row records the failure; the log says it too.
        (error: unknown) => this.logger?.warn({ jobId: job.id, err: error }, 'ingestion failed'),
      )
      .finally(() => {
        this.#running.delete(siteId);
        for (const listener of this.#settled) listener();
      });
    return job;
  }

  /** Calls `listener` after each ingestion ends, finished or failed (caches of site rows listen). */
  onSettled(listener: () => void): void {
    this.#settled.push(listener);
  }

  async idle(): Promise<void> {
    await Promise.all([...this.#running.values()].map((r) => r.done));
  }
}
