import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { IdleWorker } from '../workers/idle-worker.ts';
import type { PageCandidate, PageLoaderOptions, PageResult } from './load-page.ts';
import type { SpecListing } from './openapi/spec-cache.ts';
import type {
  PageWorkerJob,
  PageWorkerOutput,
  PageWorkerRequest,
  PageWorkerResponse,
} from './page-worker.ts';
import { threadCpuMs } from './thread-cpu-clock.ts';
import type { Warning } from './types.ts';

/**
 * Pages are parsed in worker threads only, never on the main thread: a docs folder is untrusted input,
 * and one page of nested lists, emphasis runs or a wide table can take seconds, overflow the stack or
 * run a heap out of memory. In a worker that costs the worker (replaced) and the page (skipped with a
 * warning), while the main thread keeps answering. Large sites get one worker per core.
 */
export const PARALLEL_MIN_PAGES = 150;
export const MAX_PAGE_WORKERS = 4;
/**
 * Longest one page may take to load (read, parse, chunk, analyze); its worker is then terminated. Counted
 * in the worker thread's CPU time where the system keeps one (Linux): a legitimate page that parses in 5 s
 * on an idle machine took over 10 s of wall-clock time on a busy one and was dropped.
 */
export const MAX_PAGE_PARSE_MS = 10_000;
/**
 * However little CPU a page's worker got, the page is given up after this many times its budget of
 * wall-clock time: a starved machine must not hold an ingestion forever.
 */
export const MAX_PAGE_PARSE_WALL_FACTOR = 6;
/** Shortest wait before a starved page's CPU time is read again. */
const MIN_BUDGET_RECHECK_MS = 50;
/**
 * Old-generation heap of a page worker: a page that needs more is skipped instead of the process dying.
 * It is also what an ingestion's memory peaks at, since V8 lets a worker's heap fill up to near its cap
 * before collecting it fully: with 2,048 MB, ingesting the 31,816-file test site (the shared corpora
 * copied eight times) peaked at 1.3–1.7 GB RSS, two workers each holding the garbage of their heaviest
 * pages; with 1,024 MB at 0.86–0.97 GB (two runs), every page still indexed. The price is parse time: V8
 * collects more often under a lower cap, and mintlify-docs took about 20–35 % more CPU to parse (28 s
 * against 34–37 s, on a busy machine; an earlier measurement found 1.5 times as long below 2 GB).
 * Identical pages parsed once (duplicate-pages.ts) more than make up for it on sites that repeat pages;
 * others pay it.
 */
export const PAGE_WORKER_MAX_OLD_GENERATION_MB = 1024;
/**
 * Starting a worker costs one to two seconds (it loads tsx and the parser), more than a small site takes
 * to parse, so one worker is kept warm between ingestions for this long. It never keeps the process alive.
 */
export const PAGE_WORKER_IDLE_MS = 30_000;
/** Pages posted ahead to one worker: it starts the next as soon as one is done, and stays balanced. */
const WORKER_QUEUE_DEPTH = 4;
/**
 * Young generation of a page worker (V8 sizes it as about three semi-spaces). The parser allocates
 * heavily and briefly, so it is somewhat above V8's default; but far below the heap cap, because a worker that
 * runs out of memory ends cleanly only when what a scavenge may promote still fits (nodejs/node#47224:
 * with a young generation close to the cap the whole process aborts instead).
 */
const WORKER_YOUNG_GENERATION_MB = 64;
/** A page running when its worker dies this often is the cause, not a bystander. */
const WORKER_DEATHS_TO_BLAME_PAGE = 2;
/** Worker exits with no page to blame (a worker that cannot start) before the ingestion fails. */
const MAX_UNEXPLAINED_WORKER_EXITS = 3;

export interface PageLoaderPoolOptions {
  /** Worker threads to parse with; at least one is always used. */
  workers: number;
  /** Per-page time budget (tests pass a small one). */
  maxPageParseMs?: number;
  /**
   * Reads a worker thread's CPU milliseconds from its clock (default: thread-cpu-clock.ts; tests pass
   * one that says the thread got no CPU, as on a starved machine).
   */
  threadCpuMs?: (clock: string) => number | null;
  /** Per-worker heap cap (tests pass a small one); workers with a non-default cap are never kept warm. */
  maxOldGenerationSizeMb?: number;
}

export interface PageLoaderPool {
  /**
   * Loads one page in a worker. A page that throws, overruns its budget or exhausts its worker resolves
   * as skipped with a warning; the promise rejects only with PageWorkersUnavailableError.
   */
  load(candidate: PageCandidate): Promise<PageResult>;
  /**
   * Lists the operations of an OpenAPI file in a worker (parsing a large spec must not stall the main
   * thread); a file that cannot be listed in time or memory resolves as not ok with a warning.
   */
  listOperations(file: string): Promise<SpecListing>;
  /** Pages loaded by workers, pages given up on, and workers replaced (for tests and benchmarks). */
  stats(): { loaded: number; failed: number; replacedWorkers: number };
  close(): Promise<void>;
}

/** No worker could be started or kept running: the ingestion fails rather than index nothing. */
export class PageWorkersUnavailableError extends Error {
  override name = 'PageWorkersUnavailableError';
}

export function workerCountFor(pages: number): number {
  if (pages < PARALLEL_MIN_PAGES) return 1;
  // The main thread no longer parses, so every core can be a parsing lane.
  return Math.max(1, Math.min(MAX_PAGE_WORKERS, os.availableParallelism()));
}

interface Task {
  id: number;
  job: PageWorkerJob;
  resolve: (result: PageWorkerOutput) => void;
  reject: (error: Error) => void;
  /** Workers that died while running this page. */
  deaths: number;
}

interface Running {
  task: Task;
  timer: NodeJS.Timeout | undefined;
  startedAt: number;
  /** The worker thread's CPU clock and its reading when the page started; null: wall-clock time only. */
  cpu: { clock: string; atStart: number } | null;
}

interface Lane {
  worker: Worker;
  /** Posted to the worker and not yet answered, in the order the worker runs them. */
  posted: Map<number, Task>;
  /** The page the worker said it started, with the timer of its budget. */
  running: Running | null;
  /** False once the worker is being replaced or the pool closes: it gets no more pages. */
  alive: boolean;
  /** Exits of this lane's workers since it last finished a page, with no page to blame. */
  unexplainedExits: number;
  /** The error the worker reported before exiting (out of memory, an uncaught throw). */
  lastError: Error | null;
  /** Removes this pool's listeners, when the worker is kept warm for another pool. */
  detach: () => void;
}

const defaultLimits = (options: PageLoaderPoolOptions): boolean =>
  (options.maxOldGenerationSizeMb ?? PAGE_WORKER_MAX_OLD_GENERATION_MB) === PAGE_WORKER_MAX_OLD_GENERATION_MB;

/**
 * The build (`npm run build`, dist/) runs the compiled worker as it is; from the TypeScript sources
 * (tests, `npm run docent`) a boot file registers the TypeScript loader in the worker first.
 */
const PAGE_WORKER_URL = import.meta.url.endsWith('.js')
  ? new URL('./page-worker.js', import.meta.url)
  : new URL('./page-worker-boot.mjs', import.meta.url);

function spawnPageWorker(maxOldGenerationSizeMb: number): Worker {
  return new Worker(PAGE_WORKER_URL, {
    // Start clean: whatever flags the host runs with, a worker needs none of them.
    execArgv: [],
    resourceLimits: {
      // Kept a quarter of the cap at most, so that the small caps of tests end workers cleanly too.
      maxYoungGenerationSizeMb: Math.max(
        1,
        Math.min(WORKER_YOUNG_GENERATION_MB, Math.floor(maxOldGenerationSizeMb / 4)),
      ),
      maxOldGenerationSizeMb,
    },
  });
}

/** An idle, started worker with the default limits, waiting for the next ingestion in this process. */
const idleWorker = new IdleWorker(PAGE_WORKER_IDLE_MS);

const ignoreError = (): void => {};

/**
 * Listeners are removed one by one, never with removeAllListeners(): Node's own listeners on a Worker
 * start and stop its message port, and without them a reused worker would never deliver a message.
 */
interface WorkerListeners {
  message?: (message: PageWorkerResponse) => void;
  error: (error: Error) => void;
  exit: () => void;
}

function listen(worker: Worker, listeners: WorkerListeners): () => void {
  const { message, error, exit } = listeners;
  if (message) worker.on('message', message);
  worker.on('error', error);
  worker.on('exit', exit);
  return () => {
    if (message) worker.off('message', message);
    worker.off('error', error);
    worker.off('exit', exit);
  };
}

/** Keeps a healthy idle worker (listened to by no pool) for the next ingestion; none is kept yet. */
function keepWarm(worker: Worker): void {
  worker.postMessage({ kind: 'reset' } satisfies PageWorkerRequest);
  idleWorker.keep(worker);
}

/** Ends the warm worker now (a server shutting down; it would not keep the process alive anyway). */
export function closeIdlePageWorkers(): Promise<void> {
  return idleWorker.close();
}

/** What a job that failed in its worker (over budget, out of memory, threw) resolves as. */
const failedJob = (job: PageWorkerJob, reason: string): PageWorkerOutput =>
  job.kind === 'page'
    ? {
        page: null,
        skipped: false,
        warnings: [{ file: job.candidate.file, message: `${reason}; page skipped` } satisfies Warning],
        snippetFiles: [],
      }
    : { ok: false, warnings: [{ file: job.file, message: `${reason}; its operations are not indexed` }] };

export function createPageLoaderPool(
  loaderOptions: PageLoaderOptions,
  poolOptions: PageLoaderPoolOptions,
): PageLoaderPool {
  const budgetMs = poolOptions.maxPageParseMs ?? MAX_PAGE_PARSE_MS;
  const cpuMs = poolOptions.threadCpuMs ?? threadCpuMs;
  const memoryMb = poolOptions.maxOldGenerationSizeMb ?? PAGE_WORKER_MAX_OLD_GENERATION_MB;
  const reusable = defaultLimits(poolOptions);
  const wanted = Math.max(1, poolOptions.workers);
  const counts = { loaded: 0, failed: 0, replacedWorkers: 0 };
  const lanes: Lane[] = [];
  // Not bounded here: the caller bounds it. The loader (streamDocsFolder) keeps at most PAGES_IN_FLIGHT
  // pages outstanding and hands them to the writer in order, so workers never run further ahead of it.
  const queue: Task[] = [];
  let nextId = 0;
  let closed = false;
  let unavailable: PageWorkersUnavailableError | null = null;

  const skip = (task: Task, reason: string): void => {
    counts.failed++;
    task.resolve(failedJob(task.job, reason));
  };

  const giveUp = (error: PageWorkersUnavailableError): void => {
    unavailable = error;
    for (const lane of lanes) {
      for (const task of lane.posted.values()) task.reject(error);
      lane.posted.clear();
      retire(lane);
    }
    for (const task of queue.splice(0)) task.reject(error);
  };

  const fill = (lane: Lane): void => {
    while (lane.posted.size < WORKER_QUEUE_DEPTH) {
      const task = queue.shift();
      if (!task) return;
      lane.posted.set(task.id, task);
      lane.worker.postMessage({
        kind: 'load',
        id: task.id,
        job: task.job,
      } satisfies PageWorkerRequest);
    }
  };

  // Workers start when there is work for them, not before: a folder without pages starts none, a
  // worker ended on the last page is not replaced, and a warm worker is used before a new one starts.
  const pump = (): void => {
    for (const lane of lanes) if (lane.alive) fill(lane);
    if (closed || unavailable) return;
    for (const [at, lane] of lanes.entries()) {
      if (lane.alive || queue.length === 0) continue;
      counts.replacedWorkers++;
      const fresh = open(spawnPageWorker(memoryMb), lane.unexplainedExits);
      lanes[at] = fresh;
      fill(fresh);
    }
    while (queue.length > 0 && lanes.length < wanted) {
      const lane = open((reusable ? idleWorker.take() : null) ?? spawnPageWorker(memoryMb));
      lanes.push(lane);
      fill(lane);
    }
  };

  const stopTimer = (lane: Lane): void => {
    if (lane.running) clearTimeout(lane.running.timer);
    lane.running = null;
  };

  /** Takes a lane out of service and ends its worker; its exit is then expected, not a death. */
  const retire = (lane: Lane): void => {
    if (!lane.alive) return;
    lane.alive = false;
    stopTimer(lane);
    lane.worker.terminate().catch(ignoreError);
  };

  /** Hands the pages of a worker that died or was ended back to the queue, the one it ran first. */
  const requeue = (lane: Lane): void => {
    queue.unshift(...lane.posted.values());
    lane.posted.clear();
    pump();
  };

  const onMessage = (lane: Lane, message: PageWorkerResponse): void => {
    if (!lane.alive || message.kind === 'ready') return;
    const task = lane.posted.get(message.id);
    if (!task) return;
    if (message.kind === 'started') {
      stopTimer(lane);
      const atStart = message.cpuClock === null ? null : cpuMs(message.cpuClock);
      const running: Running = {
        task,
        timer: undefined,
        startedAt: performance.now(),
        cpu: message.cpuClock === null || atStart === null ? null : { clock: message.cpuClock, atStart },
      };
      const check = (): void => {
        const now = running.cpu === null ? null : cpuMs(running.cpu.clock);
        const used = running.cpu === null || now === null ? budgetMs : now - running.cpu.atStart;
        const waited = performance.now() - running.startedAt;
        const capMs = budgetMs * MAX_PAGE_PARSE_WALL_FACTOR;
        if (used < budgetMs && waited < capMs) {
          // The thread was kept off the CPU (a busy machine): the page has the rest of its budget, and
          // never more than the rest of the wall-clock cap.
          const next = Math.min(budgetMs - used, capMs - waited);
          running.timer = setTimeout(check, Math.max(MIN_BUDGET_RECHECK_MS, next));
          return;
        }
        // Only this page was running in the worker since it started: it is the one over budget.
        lane.posted.delete(task.id);
        skip(task, `parsing took longer than ${budgetMs} ms (MAX_PAGE_PARSE_MS)`);
        retire(lane);
        requeue(lane);
      };
      running.timer = setTimeout(check, budgetMs);
      lane.running = running;
      return;
    }
    stopTimer(lane);
    lane.posted.delete(task.id);
    lane.unexplainedExits = 0;
    if (message.kind === 'result') {
      counts.loaded++;
      task.resolve(message.result);
    } else {
      const detail = message.errorMessage
        ? `${message.errorName}: ${message.errorMessage}`
        : message.errorName;
      skip(task, `failed to load page (${detail})`);
    }
    pump();
  };

  const onExit = (lane: Lane): void => {
    if (!lane.alive) return;
    const running = lane.running?.task;
    lane.alive = false;
    stopTimer(lane);
    const error = lane.lastError;
    const outOfMemory = (error as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    if (running) {
      running.deaths++;
      if (running.deaths >= WORKER_DEATHS_TO_BLAME_PAGE) {
        lane.posted.delete(running.id);
        const reason = outOfMemory
          ? `parsing exhausted the page worker's memory (${memoryMb} MB)`
          : `the page worker exited while parsing it (${error?.name ?? 'no error'}), twice`;
        skip(running, reason);
      }
      // Otherwise it goes first to the new worker with the others: a worker may also die of what
      // earlier pages left behind, so only a second death on the same page convicts it.
    } else if (++lane.unexplainedExits >= MAX_UNEXPLAINED_WORKER_EXITS) {
      const why = error ? `${error.name}: ${error.message}` : 'exited';
      giveUp(new PageWorkersUnavailableError(`page workers could not start or keep running (${why})`));
      return;
    }
    requeue(lane);
  };

  function open(worker: Worker, unexplainedExits = 0): Lane {
    const lane: Lane = {
      worker,
      posted: new Map(),
      running: null,
      alive: true,
      unexplainedExits,
      lastError: null,
      detach: () => {},
    };
    // Held while the ingestion waits on it: the caller's pending promises alone keep no process alive.
    worker.ref();
    lane.detach = listen(worker, {
      message: (message: PageWorkerResponse) => onMessage(lane, message),
      error: (error: Error) => {
        lane.lastError = error;
      },
      exit: () => onExit(lane),
    });
    worker.postMessage({ kind: 'configure', options: loaderOptions } satisfies PageWorkerRequest);
    return lane;
  }

  const run = (job: PageWorkerJob): Promise<PageWorkerOutput> =>
    new Promise<PageWorkerOutput>((resolve, reject) => {
      if (unavailable) return reject(unavailable);
      if (closed) return reject(new Error('page loader pool is closed'));
      queue.push({ id: nextId++, job, resolve, reject, deaths: 0 });
      pump();
    });

  return {
    // The worker answers a job with the output of its kind.
    load: (candidate) => run({ kind: 'page', candidate }) as Promise<PageResult>,
    listOperations: (file) => run({ kind: 'operations', file }) as Promise<SpecListing>,
    stats: () => ({ ...counts }),
    async close() {
      if (closed) return;
      closed = true;
      const error = new Error('page loader pool is closed');
      for (const task of queue.splice(0)) task.reject(error);
      const ending: Promise<unknown>[] = [];
      for (const lane of lanes) {
        for (const task of lane.posted.values()) task.reject(error);
        const idle = lane.alive && lane.posted.size === 0;
        lane.posted.clear();
        if (idle && reusable && !idleWorker.occupied) {
          lane.detach();
          keepWarm(lane.worker);
          lane.alive = false;
          continue;
        }
        if (lane.alive) {
          lane.alive = false;
          stopTimer(lane);
          ending.push(lane.worker.terminate().catch(ignoreError));
        }
      }
      await Promise.all(ending);
    },
  };
}
