/**
 * Waits for an answer stream to start before the HTTP response is committed: a provider that fails
 * before writing any text (bad key, unknown model, outage after the retries, connect timeout) gets a
 * clean error response instead of a 200 stream ending in `3:`, and the reader loses nothing by the wait,
 * since no answer text could have been sent earlier anyway.
 */

/** The stream parts this looks at; anything else (tool calls, step markers) is held and replayed. */
type StreamPart = { type: string; textDelta?: string; error?: unknown };

export type AnswerStart<T> =
  /**
   * Text began (`text`) or the answer ended normally, possibly empty: `parts` is the whole stream.
   * Returned as soon as the first text arrives, so the caller can time it.
   */
  | { kind: 'started'; parts: AsyncIterable<T>; text: boolean }
  /** The model failed before any text. */
  | { kind: 'failed'; error: unknown }
  /** The reader went away before any text. */
  | { kind: 'aborted' };

/**
 * `stream` is the answer, or a function opening it (a model's `doStream`): a failure to open counts as
 * failing before any text.
 */
export async function awaitAnswerStart<T extends StreamPart>(
  stream: AsyncIterable<T> | (() => Promise<AsyncIterable<T>>),
  abortSignal?: { readonly aborted: boolean },
): Promise<AnswerStart<T>> {
  let iterator: AsyncIterator<T> | undefined;
  const held: T[] = [];
  const failure = async (error: unknown): Promise<AnswerStart<T>> => {
    await iterator?.return?.().catch(() => {});
    return abortSignal?.aborted || isAbortError(error) ? { kind: 'aborted' } : { kind: 'failed', error };
  };
  try {
    iterator = (typeof stream === 'function' ? await stream() : stream)[Symbol.asyncIterator]();
  } catch (error) {
    return failure(error);
  }
  for (;;) {
    let next: IteratorResult<T>;
    try {
      next = await iterator.next();
    } catch (error) {
      return failure(error);
    }
    if (next.done) return { kind: 'started', parts: replay(held, iterator, true), text: false };
    const part = next.value;
    if (part.type === 'error') return failure(part.error);
    held.push(part);
    const text = part.type === 'text-delta' && Boolean(part.textDelta);
    if (text || part.type === 'finish')
      return { kind: 'started', parts: replay(held, iterator, false), text };
  }
}

async function* replay<T>(held: T[], iterator: AsyncIterator<T>, done: boolean): AsyncGenerator<T> {
  try {
    yield* held;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // The consumer stopped early (client gone): let the source release its upstream request.
    await iterator.return?.().catch(() => {});
  }
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
