import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Reads a stored index's parts from a SQLite database file in a worker thread, into one buffer that is
 * transferred back (not copied). SQLite reads are synchronous: on the main thread each 2 MB part held the
 * event loop for as long as the disk took, which after a restart, with the file not yet in the page
 * cache, was seconds for a large site (`/healthz` waited 1.8 s); and every part left garbage on the main
 * thread's heap, whose collections the other requests waited for.
 *
 * Like the WAL checkpointer, the worker is plain JavaScript evaluated in place, with the same
 * better-sqlite3 the server uses, on a read-only connection of its own. Its one query is
 * stored-index.ts's part query, written in SQL here because the worker has no Kysely.
 */
export function readPartsInWorker(input: {
  file: string;
  siteId: string;
  generation: number;
  sizes: readonly number[];
}): Promise<{ bytes: Uint8Array } | { damaged: string }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), ...input },
    });
    let settled = false;
    worker.once('message', (reply: { bytes: Uint8Array } | { damaged: string }) => {
      settled = true;
      resolve(reply);
      void worker.terminate();
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the index reader exited with code ${code} before answering`));
    });
  });
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const { file, siteId, generation, sizes } = workerData;
const db = new SQLite(file, { readonly: true, fileMustExist: true });
try {
  const part = db.prepare('select data from search_indexes where site_id = ? and generation = ? and part = ?');
  const bytes = new Uint8Array(sizes.reduce((sum, size) => sum + size, 0));
  let at = 0;
  let damaged = null;
  for (let i = 0; i < sizes.length && damaged === null; i++) {
    const row = part.get(siteId, generation, i);
    if (!row || row.data.byteLength !== sizes[i]) damaged = 'part ' + i + ' changed';
    else {
      bytes.set(row.data, at);
      at += row.data.byteLength;
    }
  }
  if (damaged === null) parentPort.postMessage({ bytes }, [bytes.buffer]);
  else parentPort.postMessage({ damaged });
} finally {
  db.close();
}
`;
