import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies the write-ahead log into the database file. */
export const WAL_CHECKPOINT_INTERVAL_MS = 500;

export interface WalCheckpointer {
  /** Stops checkpointing and closes the worker's connection. */
  stop(): Promise<void>;
}

/**
 * Checkpoints a SQLite database's write-ahead log from a worker thread, so that the server's own
 * connection can turn its automatic checkpoints off (`wal_autocheckpoint = 0`).
 *
 * Why: SQLite checkpoints inside whichever commit pushes the log past 1,000 pages, and a checkpoint
 * copies those pages and syncs both files. On the request path that commit then blocks the event loop
 * for several milliseconds (6-10 ms measured here) every few hundred answers, and every stream on the
 * process stalls with it. A `PASSIVE` checkpoint on another connection takes no lock that writers or
 * readers wait for, and one with nothing new to copy costs next to nothing.
 *
 * The worker is plain JavaScript evaluated in place (no build step or loader needed) and loads the same
 * better-sqlite3 the server uses. If it fails or exits on its own, `onFailure` is called once: the caller
 * turns automatic checkpoints back on, so the log never grows without bound.
 */
export function startWalCheckpointer(file: string, onFailure: (error: unknown) => void): WalCheckpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      intervalMs: WAL_CHECKPOINT_INTERVAL_MS,
    },
  });
  // A checkpointer never keeps a process alive on its own.
  worker.unref();
  let stopping = false;
  let failed = false;
  const fail = (error: unknown): void => {
    if (stopping || failed) return;
    failed = true;
    onFailure(error);
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the WAL checkpointer exited with code ${code}`)));
  return {
    stop() {
      if (stopping) return Promise.resolve();
      stopping = true;
      if (failed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        // Held until it has exited: an unref'd worker alone does not keep the loop alive, and a process
        // with nothing else to do (a start whose migrations failed) exited with code 0 and no message
        // before its error was reported.
        worker.ref();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      });
    },
  };
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;
