/**
 * Peak memory of one Docent server process serving a corpus under load: the server runs in its own
 * process on a database that already holds the corpus; its VmRSS is sampled every 100 ms from /proc and
 * its VmHWM (the kernel's high-water mark of resident memory) is read at the end.
 */
import { openStorage } from '../../src/storage/database.ts';
import { type LoadResult, runLoad } from '../load.ts';
import { assistantBodies } from './endpoint.ts';
import type { KeptSite } from './ingestion.ts';
import { processMemory, startDocentServer, stopProcess } from './processes.ts';

export interface MemoryMeasurement {
  corpus: string;
  pages: number;
  chunks: number;
  concurrency: number;
  seconds: number;
  /** Distinct request texts (page titles of the corpus), round-robin. */
  queries: number;
  /** After start-up, before any request. */
  idleRssBytes: number;
  /** Largest VmRSS sample during the load. */
  sampledPeakRssBytes: number;
  /** VmHWM at the end: the process's peak resident memory over its whole life. */
  peakRssBytes: number;
  load: LoadResult;
}

export async function measurePeakRss(options: {
  corpus: string;
  site: KeptSite;
  concurrency: number;
  seconds: number;
  warmupMs?: number;
}): Promise<MemoryMeasurement> {
  const storage = await openStorage(options.site.databaseUrl);
  let titles: string[];
  let chunks: number;
  let pages: number;
  try {
    const rows = await storage.db.selectFrom('pages').select('title').orderBy('path').execute();
    pages = rows.length;
    titles = [...new Set(rows.map((r) => r.title).filter((t) => t.trim() !== ''))];
    const count = await storage.db
      .selectFrom('chunks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    chunks = Number(count.n);
  } finally {
    await storage.close();
  }
  const bodies = assistantBodies(titles.length > 0 ? titles : ['getting started']);
  const server = await startDocentServer(options.site.databaseUrl);
  const pid = server.child.pid;
  try {
    const idle = processMemory(pid)?.rss ?? Number.NaN;
    let sampledPeak = idle;
    const sampler = setInterval(() => {
      const now = processMemory(pid)?.rss;
      if (now !== undefined && now > sampledPeak) sampledPeak = now;
    }, 100);
    const common = {
      origin: server.value,
      path: `/v1/assistant/${options.site.domain}/message`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.site.assistantKey}` },
      bodies,
      concurrency: options.concurrency,
    };
    await runLoad({ ...common, durationMs: options.warmupMs ?? 500 });
    const load = await runLoad({ ...common, durationMs: options.seconds * 1000 });
    clearInterval(sampler);
    const end = processMemory(pid);
    return {
      corpus: options.corpus,
      pages,
      chunks,
      concurrency: options.concurrency,
      seconds: options.seconds,
      queries: bodies.length,
      idleRssBytes: idle,
      sampledPeakRssBytes: Math.max(sampledPeak, end?.rss ?? 0),
      peakRssBytes: end?.peak ?? Number.NaN,
      load,
    };
  } finally {
    await stopProcess(server.child);
  }
}
