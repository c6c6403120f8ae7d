import { readFileSync, realpathSync } from 'node:fs';

/**
 * The CPU time of one thread, read from outside it: a page's parse budget counts the time its worker
 * thread ran, not the time that passed, so a page is not dropped because the machine was busy (two
 * ingestions, or an ingestion beside heavy traffic, slowed the parse of a large legitimate page past a
 * wall-clock budget). Linux only (`/proc/<pid>/task/<tid>/schedstat`, nanoseconds on the CPU); elsewhere
 * there is no clock and the budget is wall-clock time.
 */

/** This thread's CPU-time file, to be read by another thread; null where there is none. */
export function ownThreadCpuClock(): string | null {
  try {
    const clock = `${realpathSync('/proc/thread-self')}/schedstat`;
    return threadCpuMs(clock) === null ? null : clock;
  } catch {
    return null;
  }
}

/** Milliseconds the thread has run on a CPU; null when its clock cannot be read (the thread is gone). */
export function threadCpuMs(clock: string): number | null {
  try {
    const runNs = Number(readFileSync(clock, 'latin1').split(' ', 1)[0]);
    return Number.isFinite(runNs) ? runNs / 1e6 : null;
  } catch {
    return null;
  }
}
