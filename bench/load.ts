import { Pool } from 'undici';
import { percentile } from '../src/search/metrics.ts';

export { percentile };

/**
 * A small closed-loop load generator over undici: `concurrency` clients each send a request, read the
 * response to the end, and send the next, for `durationMs`. TTFB is the time to the first body byte
 * (for a stream, the first part), not just the headers.
 */
export interface LoadResult {
  concurrency: number;
  requests: number;
  errors: number;
  /** Why requests failed: HTTP status or the client error's code, with counts. */
  failures: Record<string, number>;
  seconds: number;
  rps: number;
  ttfbMs: { p50: number; p90: number; p99: number };
  totalMs: { p50: number; p90: number; p99: number };
}

export interface LoadOptions {
  origin: string;
  path: string;
  headers: Record<string, string>;
  /**
   * Request bodies, used round-robin; or a function of the request's number in this run, for bodies that
   * must differ per request (the v2 route's chat id).
   */
  bodies: readonly string[] | ((n: number) => string);
  concurrency: number;
  durationMs: number;
}

/** What one run measured, before it is summarised (runs of one target can be pooled). */
export interface LoadSamples {
  concurrency: number;
  ttfb: number[];
  total: number[];
  errors: number;
  failures: Record<string, number>;
  seconds: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  return summarizeLoad([await sampleLoad(options)]);
}

/** Pools several runs of one target (the rounds of an interleaved measurement) into one result. */
export function summarizeLoad(runs: readonly LoadSamples[]): LoadResult {
  const ttfb = runs.flatMap((r) => r.ttfb);
  const total = runs.flatMap((r) => r.total);
  const failures: Record<string, number> = {};
  for (const r of runs)
    for (const [why, n] of Object.entries(r.failures)) failures[why] = (failures[why] ?? 0) + n;
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  return {
    concurrency: runs[0]?.concurrency ?? 0,
    requests: total.length,
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    failures,
    seconds,
    rps: total.length / seconds,
    ttfbMs: { p50: percentile(ttfb, 50), p90: percentile(ttfb, 90), p99: percentile(ttfb, 99) },
    totalMs: { p50: percentile(total, 50), p90: percentile(total, 90), p99: percentile(total, 99) },
  };
}

export async function sampleLoad(options: LoadOptions): Promise<LoadSamples> {
  const pool = new Pool(options.origin, { connections: options.concurrency, pipelining: 1 });
  const ttfb: number[] = [];
  const total: number[] = [];
  let errors = 0;
  const failures: Record<string, number> = {};
  const fail = (why: string): void => {
    errors++;
    failures[why] = (failures[why] ?? 0) + 1;
  };
  let next = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const client = async () => {
    while (performance.now() < deadline) {
      const n = next++;
      const body =
        typeof options.bodies === 'function'
          ? options.bodies(n)
          : (options.bodies[n % options.bodies.length] ?? '{}');
      const t0 = performance.now();
      try {
        const response = await pool.request({
          method: 'POST',
          path: options.path,
          headers: options.headers,
          body,
        });
        let first: number | undefined;
        for await (const _chunk of response.body) {
          if (first === undefined) first = performance.now();
        }
        const end = performance.now();
        if (response.statusCode !== 200) {
          fail(`HTTP ${response.statusCode}`);
          continue;
        }
        ttfb.push((first ?? end) - t0);
        total.push(end - t0);
      } catch (error) {
        fail((error as { code?: string }).code ?? (error instanceof Error ? error.name : 'error'));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { concurrency: options.concurrency, ttfb, total, errors, failures, seconds };
}
