import type { Logger } from 'pino';
import { databaseUnavailable } from './database-open-problem.ts';

/** How often a service that has failed is asked again, to say in the log when it is back. */
export const OUTAGE_PROBE_MS = 2_000;

export interface OutageLogOptions {
  probeMs?: number;
  now?: () => number;
}

/**
 * Says in the log when a shared service (the database, Redis) stops answering and when it answers
 * again, once each. During an outage every request fails the same way: an error with its stack per
 * request buried those two lines under hundreds of copies of one trace, and a Redis outage, refused
 * as a plain 503, left no line at all. The later failures are logged at debug level, with their
 * request ids, for whoever needs to follow one request.
 */
export class OutageLog {
  readonly #service: string;
  readonly #probe: () => Promise<unknown>;
  readonly #logger: Logger;
  readonly #probeMs: number;
  readonly #now: () => number;
  #since: number | undefined;
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  #probing = false;

  constructor(
    service: string,
    probe: () => Promise<unknown>,
    logger: Logger,
    options: OutageLogOptions = {},
  ) {
    this.#service = service;
    this.#probe = probe;
    this.#logger = logger;
    this.#probeMs = options.probeMs ?? OUTAGE_PROBE_MS;
    this.#now = options.now ?? Date.now;
  }

  get down(): boolean {
    return this.#since !== undefined;
  }

  /** `fields` name what failed: a request's id, a background job. */
  failed(error: unknown, fields: Record<string, unknown> = {}): void {
    this.#failures++;
    const ids = fields;
    if (this.#since !== undefined) {
      this.#logger.debug(
        { ...ids, service: this.#service, cause: (error as Error)?.message },
        `${this.#service} still unreachable`,
      );
      return;
    }
    this.#since = this.#now();
    this.#logger.error({ ...ids, err: error, service: this.#service }, `${this.#service} unreachable`);
    // Requests may stop coming while it is down (a load balancer took the replica out): a probe of
    // its own, not the next request, finds it back. Unref'd: it never keeps a stopping process up.
    this.#timer = setInterval(() => void this.#check(), this.#probeMs);
    this.#timer.unref();
  }

  /** Stops probing (the server is closing); no "reachable again" line follows. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #check(): Promise<void> {
    if (this.#probing || this.#since === undefined) return;
    this.#probing = true;
    try {
      await this.#probe();
    } catch {
      return;
    } finally {
      this.#probing = false;
    }
    const downMs = this.#now() - this.#since;
    this.#logger.info(
      { service: this.#service, downMs, failures: this.#failures },
      `${this.#service} reachable again`,
    );
    this.close();
    this.#since = undefined;
    this.#failures = 0;
  }
}

/**
 * A background job's failure (the instance heartbeat, recovery, git polling, retention). While the
 * database is unreachable it is one more failure of the outage, which the log tells once: each job
 * wrote an error with its stack every time it ran, one every few seconds for as long as it lasted.
 * Anything else is logged at `level` (an error by default) with its stack.
 */
export function logJobFailure(
  outage: OutageLog | undefined,
  logger: Pick<Logger, 'error' | 'warn'>,
  error: unknown,
  job: string,
  fields: Record<string, unknown> = {},
  level: 'error' | 'warn' = 'error',
): void {
  if (outage !== undefined && databaseUnavailable(error)) outage.failed(error, { ...fields, job });
  else logger[level]({ ...fields, err: error }, `${job} failed`);
}
