import { parentPort } from 'node:worker_threads';
import {
  createPageLoader,
  type PageCandidate,
  type PageLoader,
  type PageLoaderOptions,
  type PageResult,
} from './load-page.ts';
import type { SpecListing } from './openapi/spec-cache.ts';
import { ownThreadCpuClock } from './thread-cpu-clock.ts';

/** What a worker is asked to do: load one page, or list the operations of one OpenAPI file. */
export type PageWorkerJob = { kind: 'page'; candidate: PageCandidate } | { kind: 'operations'; file: string };
export type PageWorkerOutput = PageResult | SpecListing;

/**
 * Messages between the pool and a page worker. One worker outlives an ingestion (it is kept warm for
 * the next one), so the loader options come as a message per ingestion, not as `workerData`.
 */
export type PageWorkerRequest =
  | { kind: 'configure'; options: PageLoaderOptions }
  | { kind: 'load'; id: number; job: PageWorkerJob }
  /** Drops the ingestion's loader (its snippet and OpenAPI caches) while the worker waits idle. */
  | { kind: 'reset' };

export type PageWorkerResponse =
  | { kind: 'ready' }
  /**
   * Sent just before the worker starts on a page: the pool's time budget for it runs from here, counted
   * on the worker thread's CPU clock when it has one (thread-cpu-clock.ts).
   */
  | { kind: 'started'; id: number; cpuClock: string | null }
  | { kind: 'result'; id: number; result: PageWorkerOutput }
  /** The page threw. Only the error's class and V8's own message travel: never text of the page. */
  | { kind: 'failed'; id: number; errorName: string; errorMessage: string | null };

/** Messages V8 itself raises when a page exhausts a resource; none of them can quote the page. */
const RESOURCE_ERRORS =
  /^(Maximum call stack size exceeded|Invalid string length|Invalid array length|Array buffer allocation failed)$/;

const describeError = (error: unknown): { errorName: string; errorMessage: string | null } => {
  if (!(error instanceof Error)) return { errorName: typeof error, errorMessage: null };
  return {
    errorName: error.name,
    errorMessage: RESOURCE_ERRORS.test(error.message) ? error.message : null,
  };
};

if (parentPort) {
  const port = parentPort;
  const cpuClock = ownThreadCpuClock();
  let loader: PageLoader | null = null;
  const queue: { id: number; job: PageWorkerJob }[] = [];
  let busy = false;

  // One page at a time, in the order they were sent: the pool then knows which page is running when
  // the budget runs out or the worker dies, so only that page is blamed.
  const drain = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { id, job } = next;
        port.postMessage({ kind: 'started', id, cpuClock } satisfies PageWorkerResponse);
        try {
          if (!loader) throw new Error('page worker used before it was configured');
          const result =
            job.kind === 'page' ? await loader.load(job.candidate) : await loader.operations(job.file);
          port.postMessage({ kind: 'result', id, result } satisfies PageWorkerResponse);
        } catch (error) {
          port.postMessage({ kind: 'failed', id, ...describeError(error) } satisfies PageWorkerResponse);
        }
      }
    } finally {
      busy = false;
    }
  };

  port.on('message', (request: PageWorkerRequest) => {
    if (request.kind === 'configure') {
      loader = createPageLoader(request.options);
    } else if (request.kind === 'reset') {
      loader = null;
    } else {
      queue.push({ id: request.id, job: request.job });
      void drain();
    }
  });
  port.postMessage({ kind: 'ready' } satisfies PageWorkerResponse);
}
