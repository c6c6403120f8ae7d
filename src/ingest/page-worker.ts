import { parentPort, workerData } from 'node:worker_threads';
import { createPageLoader, type PageLoaderOptions } from './load-page.ts';

/** Messages between the pool and a page worker. */
export type PageWorkerRequest = { id: number; candidate: import('./load-page.ts').PageCandidate };
export type PageWorkerResponse =
  | { id: number; result: import('./load-page.ts').PageResult }
  | { id: number; error: string };

if (parentPort) {
  const port = parentPort;
  const load = createPageLoader(workerData as PageLoaderOptions);
  port.on('message', (request: PageWorkerRequest) => {
    load(request.candidate).then(
      (result) => port.postMessage({ id: request.id, result } satisfies PageWorkerResponse),
      (error: unknown) =>
        port.postMessage({
          id: request.id,
          error: (error as Error).message ?? String(error),
        } satisfies PageWorkerResponse),
    );
  });
}
