import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { ReaderGone } from './answer-question.ts';
import { goneOr, linkCount, linkedSignal } from './reader-gone.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const readerOf = (controller: AbortController): ReaderGone => ({
  get aborted() {
    return controller.signal.aborted;
  },
  signal: controller.signal,
});

/** What `signal` holds for each signal combined with it: Node's own set (`AbortSignal.any`) and ours. */
function heldBy(signal: AbortSignal): number {
  const nodes = Object.getOwnPropertySymbols(signal)
    .filter((symbol) => symbol.description === 'kDependantSignals')
    .map((symbol) => (signal as unknown as Record<symbol, Set<unknown> | undefined>)[symbol]?.size ?? 0);
  return nodes.reduce((a, b) => a + b, 0) + linkCount(signal);
}

describe('goneOr', () => {
  it('aborts when the reader leaves, or when the server stops, with that one’s reason', () => {
    const stopping = new AbortController();
    const left = new AbortController();
    const first = goneOr(readerOf(left), stopping.signal);
    const staying = goneOr(readerOf(new AbortController()), stopping.signal);
    expect(first.signal.aborted).toBe(false);
    left.abort(new Error('reader left'));
    expect(first.aborted).toBe(true);
    expect((first.signal.reason as Error).message).toBe('reader left');
    expect(staying.signal.aborted).toBe(false);
    stopping.abort(new Error('stopping'));
    expect(staying.aborted).toBe(true);
    expect((staying.signal.reason as Error).message).toBe('stopping');
    // Made after the stop: aborted from the start.
    expect(goneOr(readerOf(new AbortController()), stopping.signal).signal.aborted).toBe(true);
  });

  it('leaves nothing on the server-wide signal for the answers that are over', async () => {
    // Found by a soak test: through `AbortSignal.any`, the shutdown signal kept a WeakRef for every answer
    // ever given a signal (18,000 after 15 minutes), never freed.
    const stopping = new AbortController();
    for (let i = 0; i < 20_000; i++) {
      const reader = new AbortController();
      const gone = goneOr(readerOf(reader), stopping.signal);
      expect(gone.signal.aborted).toBe(false);
      if (i % 2 === 0) reader.abort();
      if (i % 2_000 === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        gc();
      }
    }
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    // Pruned as it grows: what was collected goes (a WeakRef's target lives to the end of its job, so up
    // to a few thousand of the last ones may still be there); it was all 20,000.
    expect(heldBy(stopping.signal)).toBeLessThan(5_000);
    // A link still alive is still stopped.
    const alive = linkedSignal(new AbortController().signal, stopping.signal);
    stopping.abort();
    expect(alive.aborted).toBe(true);
  });
});
