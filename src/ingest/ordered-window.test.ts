import { describe, expect, it } from 'vitest';
import { forEachInOrder } from './ordered-window.ts';

/** A promise with its resolve, to finish work items in any order the test chooses. */
const deferred = <T>() => {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('forEachInOrder', () => {
  it('hands results on in input order, whatever order the work finishes in', async () => {
    const gates = Array.from({ length: 6 }, () => deferred<number>());
    const emitted: number[] = [];
    const run = forEachInOrder(
      gates,
      3,
      (gate) => gate.promise,
      (value) => {
        emitted.push(value);
      },
    );
    for (const at of [2, 1, 0, 5, 4, 3]) {
      gates[at]?.resolve(at * 10);
      await settle();
    }
    await run;
    expect(emitted).toEqual([0, 10, 20, 30, 40, 50]);
  });

  it('never has more than the window started and not handed on, and waits for a slow consumer', async () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    let started = 0;
    let handedOn = 0;
    let most = 0;
    const consumer = deferred<void>();
    const run = forEachInOrder(
      items,
      4,
      async (item) => {
        started++;
        most = Math.max(most, started - handedOn);
        return item;
      },
      async (item) => {
        // The consumer holds the first item until released: nothing past the window may start.
        if (item === 0) await consumer.promise;
        handedOn++;
      },
    );
    for (let i = 0; i < 5; i++) await settle();
    expect(started).toBe(4);
    expect(handedOn).toBe(0);
    consumer.resolve();
    await run;
    expect(handedOn).toBe(50);
    expect(most).toBeLessThanOrEqual(4);
  });

  it('throws the first failure in input order and leaves no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const emitted: number[] = [];
      await expect(
        forEachInOrder(
          [0, 1, 2, 3],
          4,
          async (item) => {
            if (item >= 2) throw new Error(`item ${item}`);
            return item;
          },
          (item) => {
            emitted.push(item);
          },
        ),
      ).rejects.toThrow('item 2');
      expect(emitted).toEqual([0, 1]);
      for (let i = 0; i < 3; i++) await settle();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('does nothing for no items', async () => {
    let calls = 0;
    await forEachInOrder(
      [],
      4,
      async () => {
        calls++;
      },
      () => {
        calls++;
      },
    );
    expect(calls).toBe(0);
  });
});
