/**
 * Runs `work` over `items` and hands each result to `emit` in input order, waiting for `emit` before
 * handing on the next. At most `window` items are started and not yet handed on, so a slow consumer
 * (the ingestion's writer) stops new work instead of letting results pile up: what waits in memory is
 * bounded by the window, whatever the number of items. A slow item holds back the ones after it (they
 * wait, finished, in the window) but not the work already started.
 *
 * Rejections: the first one in input order is thrown when its turn comes; work still running then is not
 * awaited (the caller ends it, e.g. by closing the page pool) and its rejections are not left unhandled.
 */
export async function forEachInOrder<T, R>(
  items: readonly T[],
  window: number,
  work: (item: T, index: number) => Promise<R>,
  emit: (result: R, index: number) => Promise<void> | void,
): Promise<void> {
  const size = Math.max(1, window);
  const running = new Map<number, Promise<R>>();
  let started = 0;
  for (let next = 0; next < items.length; next++) {
    while (started < items.length && started - next < size) {
      const index = started++;
      const promise = work(items[index] as T, index);
      promise.catch(() => {});
      running.set(index, promise);
    }
    const promise = running.get(next) as Promise<R>;
    running.delete(next);
    await emit(await promise, next);
  }
}
