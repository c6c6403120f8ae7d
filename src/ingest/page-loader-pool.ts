import os from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  createPageLoader,
  type PageCandidate,
  type PageLoaderOptions,
  type PageResult,
} from './load-page.ts';
import type { PageWorkerRequest, PageWorkerResponse } from './page-worker.ts';

/**
 * Parsing MDX is CPU-bound (micromark does well under 1 MB/s), so large sites are parsed on every core:
 * the main thread is one lane and each worker thread another. Small sites stay on the main thread,
 * where starting a worker would cost more than it saves.
 */
export const PARALLEL_MIN_PAGES = 150;
export const MAX_PAGE_WORKERS = 4;
/** Pages queued at one worker: keeps it busy while the main thread is parsing and not reading messages. */
const WORKER_QUEUE_DEPTH = 8;
/** Young generation of a page worker (V8 sizes it as about three semi-spaces). */
const WORKER_YOUNG_GENERATION_MB = 192;

export interface PageLoaderPool {
  load(candidate: PageCandidate): Promise<PageResult>;
  /** Pages finished on the main thread and by workers (for tests and benchmarks). */
  stats(): { local: number; workers: number };
  close(): Promise<void>;
}

export function workerCountFor(pages: number): number {
  if (pages < PARALLEL_MIN_PAGES) return 0;
  return Math.max(0, Math.min(MAX_PAGE_WORKERS, os.availableParallelism() - 1));
}

interface Lane {
  worker: Worker;
  inFlight: Map<number, { candidate: PageCandidate; resolve: (r: PageResult) => void }>;
  alive: boolean;
}

export function createPageLoaderPool(options: PageLoaderOptions, workers: number): PageLoaderPool {
  const loadHere = createPageLoader(options);
  const counts = { local: 0, workers: 0 };
  const lanes: Lane[] = [];
  const queue: { candidate: PageCandidate; resolve: (r: PageResult) => void }[] = [];
  let localBusy = false;
  let nextId = 0;

  const runLocal = (candidate: PageCandidate): Promise<PageResult> => {
    counts.local++;
    return loadHere(candidate);
  };

  // Workers are topped up first; the main thread takes one page at a time, because while it parses it
  // cannot hand the workers more. With no workers (small sites) it simply works through the queue.
  const pump = (): void => {
    for (const lane of lanes) {
      while (lane.alive && lane.inFlight.size < WORKER_QUEUE_DEPTH && queue.length > 0) {
        const item = queue.shift();
        if (!item) break;
        const id = nextId++;
        lane.inFlight.set(id, item);
        lane.worker.postMessage({ id, candidate: item.candidate } satisfies PageWorkerRequest);
      }
    }
    if (!localBusy && queue.length > 0) {
      const item = queue.shift();
      if (!item) return;
      localBusy = true;
      runLocal(item.candidate)
        .then(item.resolve)
        .finally(() => {
          localBusy = false;
          pump();
        });
    }
  };

  for (let i = 0; i < workers; i++) {
    const worker = new Worker(new URL('./page-worker-boot.mjs', import.meta.url), {
      workerData: options,
      // Start clean: the boot file registers the TypeScript loader itself, whatever the host runs.
      execArgv: [],
      // The parser allocates heavily and briefly; a larger young generation spends far less time in GC.
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    const lane: Lane = { worker, inFlight: new Map(), alive: true };
    worker.unref();
    worker.on('message', (message: PageWorkerResponse) => {
      const pending = lane.inFlight.get(message.id);
      if (!pending) return;
      lane.inFlight.delete(message.id);
      if ('result' in message) {
        counts.workers++;
        pending.resolve(message.result);
        pump();
      } else {
        // The worker could not load it (it reports why as a message): the main thread tries itself.
        runLocal(pending.candidate).then(pending.resolve);
      }
    });
    const fail = () => {
      if (!lane.alive) return;
      lane.alive = false;
      // A worker that cannot start or dies hands its pages back: slower, never lost.
      queue.unshift(...lane.inFlight.values());
      lane.inFlight.clear();
      pump();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    lanes.push(lane);
  }

  return {
    load(candidate) {
      return new Promise<PageResult>((resolve) => {
        queue.push({ candidate, resolve });
        pump();
      });
    },
    stats: () => ({ ...counts }),
    async close() {
      for (const lane of lanes) lane.alive = false;
      await Promise.all(lanes.map((lane) => lane.worker.terminate()));
    },
  };
}
