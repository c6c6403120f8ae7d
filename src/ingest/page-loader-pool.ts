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
const WORKER_QUEUE_DEPTH = 4;

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
  const local = (candidate: PageCandidate): Promise<PageResult> => {
    counts.local++;
    return loadHere(candidate);
  };
  const lanes: Lane[] = [];
  let nextId = 0;

  for (let i = 0; i < workers; i++) {
    const worker = new Worker(new URL('./page-worker-boot.mjs', import.meta.url), {
      workerData: options,
      // Start clean: the boot file registers the TypeScript loader itself, whatever the host runs.
      execArgv: [],
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
      } else local(pending.candidate).then(pending.resolve);
    });
    const fail = () => {
      if (!lane.alive) return;
      lane.alive = false;
      // A worker that cannot start or dies hands its pages back to the main thread: slower, never lost.
      for (const pending of lane.inFlight.values()) local(pending.candidate).then(pending.resolve);
      lane.inFlight.clear();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    lanes.push(lane);
  }

  return {
    load(candidate) {
      const lane = lanes
        .filter((l) => l.alive && l.inFlight.size < WORKER_QUEUE_DEPTH)
        .sort((a, b) => a.inFlight.size - b.inFlight.size)[0];
      if (!lane) return local(candidate);
      return new Promise<PageResult>((resolve) => {
        const id = nextId++;
        lane.inFlight.set(id, { candidate, resolve });
        lane.worker.postMessage({ id, candidate } satisfies PageWorkerRequest);
      });
    },
    stats: () => ({ ...counts }),
    async close() {
      for (const lane of lanes) lane.alive = false;
      await Promise.all(lanes.map((lane) => lane.worker.terminate()));
    },
  };
}
