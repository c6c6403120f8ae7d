import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ownThreadCpuClock, threadCpuMs } from './thread-cpu-clock.ts';

/**
 * A worker that reports its clock, then sleeps (Atomics.wait) for the wall-clock time it is told and
 * spins for the CPU time it is told, read from its own clock (so a busy machine only makes it longer).
 */
const WORKER = `
const { parentPort } = require('node:worker_threads');
const { readFileSync, realpathSync } = require('node:fs');
const clock = realpathSync('/proc/thread-self') + '/schedstat';
const cpuMs = () => Number(readFileSync(clock, 'latin1').split(' ')[0]) / 1e6;
parentPort.postMessage(clock);
parentPort.on('message', ({ sleepMs, spinCpuMs }) => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, sleepMs);
  const end = cpuMs() + spinCpuMs;
  while (cpuMs() < end);
  parentPort.postMessage('done');
});
`;

describe('thread CPU clock', () => {
  it('finds this thread’s clock on Linux, and none where /proc has none', () => {
    const clock = ownThreadCpuClock();
    if (process.platform === 'linux') {
      expect(clock).toMatch(/^\/proc\/\d+\/task\/\d+\/schedstat$/);
      expect(threadCpuMs(clock as string)).toBeGreaterThan(0);
    } else {
      expect(clock).toBeNull();
    }
    expect(threadCpuMs('/nonexistent/schedstat')).toBeNull();
  });

  it.runIf(process.platform === 'linux')(
    'reads another thread’s CPU time: time it sleeps does not count, time it spins does',
    async () => {
      const worker = new Worker(WORKER, { eval: true });
      try {
        const next = (): Promise<unknown> =>
          new Promise((resolve) => worker.once('message', (m) => resolve(m)));
        const clock = (await next()) as string;
        const before = threadCpuMs(clock) as number;
        worker.postMessage({ sleepMs: 400, spinCpuMs: 0 });
        await next();
        const slept = (threadCpuMs(clock) as number) - before;
        worker.postMessage({ sleepMs: 0, spinCpuMs: 200 });
        await next();
        const spun = (threadCpuMs(clock) as number) - before - slept;
        expect(slept).toBeLessThan(100);
        expect(spun).toBeGreaterThanOrEqual(200);
      } finally {
        await worker.terminate();
      }
    },
  );
});
