import type { Worker } from 'node:worker_threads';

const ignoreError = (): void => {};

/**
 * One started worker thread kept idle for the next job of its kind in this process (the page parser
 * between ingestions, the index build between re-ingestions): starting one loads its code again, and
 * a fresh thread runs that code cold. A kept worker never keeps the process alive, ends after `idleMs`
 * without a job, and is forgotten if it dies while idle.
 */
export class IdleWorker {
  private kept: { worker: Worker; timer: NodeJS.Timeout; forget: () => void } | null = null;

  constructor(private readonly idleMs: number) {}

  /** Whether a worker is kept (`keep` would refuse another). */
  get occupied(): boolean {
    return this.kept !== null;
  }

  /** The kept worker's thread id, if one is kept (for tests). */
  get threadId(): number | null {
    return this.kept?.worker.threadId ?? null;
  }

  /** The kept worker, handed over (referenced again, no listener of this slot left), or null. */
  take(): Worker | null {
    const kept = this.kept;
    if (kept === null) return null;
    this.release(kept);
    kept.worker.ref();
    return kept.worker;
  }

  /**
   * Keeps an idle worker that no one listens to any more; false when one is kept already (the caller
   * ends its worker).
   */
  keep(worker: Worker): boolean {
    if (this.kept !== null) return false;
    // An 'error' without a listener would crash the process; an idle worker that exits is forgotten.
    const forget = (): void => {
      if (this.kept?.worker === worker) this.release(this.kept);
    };
    worker.on('error', ignoreError);
    worker.on('exit', forget);
    const timer = setTimeout(() => {
      forget();
      worker.terminate().catch(ignoreError);
    }, this.idleMs);
    timer.unref();
    worker.unref();
    this.kept = { worker, timer, forget };
    return true;
  }

  /** Ends the kept worker now (a server shutting down). */
  async close(): Promise<void> {
    const kept = this.kept;
    if (kept === null) return;
    this.release(kept);
    await kept.worker.terminate().catch(ignoreError);
  }

  /**
   * Listeners are removed one by one, never with removeAllListeners(): Node's own listeners on a
   * Worker start and stop its message port, and without them a reused worker would never deliver a
   * message.
   */
  private release(kept: { worker: Worker; timer: NodeJS.Timeout; forget: () => void }): void {
    this.kept = null;
    clearTimeout(kept.timer);
    kept.worker.off('error', ignoreError);
    kept.worker.off('exit', kept.forget);
  }
}
