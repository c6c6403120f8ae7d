/**
 * Waits for an answer stream to start before the HTTP response is committed: a provider that fails
 * before writing any text (bad key, unknown model, outage after the retries, connect timeout) gets a
 * clean error response instead of a 200 stream ending in `3:`, and the reader loses nothing by the wait,
 * since no answer text could have been sent earlier anyway.
 */

/** The stream parts this looks at; anything else (tool calls, step markers) is held and replayed. */
type StreamPart = { type: string; textDelta?: string; error?: unknown };

export type AnswerStart<T> =
  /** Text began or the answer ended normally (possibly empty): `parts` is the whole stream. */
  | { kind: 'started'; parts: AsyncIterable<T> }
  /** The model failed before any text. */
  | { kind: 'failed'; error: unknown }
  /** The reader went away before any text. */
  | { kind: 'aborted' };

export async function awaitAnswerStart<T extends StreamPart>(
  stream: AsyncIterable<T>,
  abortSignal?: AbortSignal,
): Promise<AnswerStart<T>> {
  const iterator = stream[Symbol.asyncIterator]();
  const held: T[] = [];
  const failure = async (error: unknown): Promise<AnswerStart<T>> => {
    await iterator.return?.().catch(() => {});
    return abortSignal?.aborted || isAbortError(error) ? { kind: 'aborted' } : { kind: 'failed', error };
  };
  for (;;) {
    let next: IteratorResult<T>;
    try {
      next = await iterator.next();
    } catch (error) {
      return failure(error);
    }
    if (next.done) return { kind: 'started', parts: replay(held, iterator, true) };
    const part = next.value;
    if (part.type === 'error') return failure(part.error);
    held.push(part);
    if ((part.type === 'text-delta' && part.textDelta) || part.type === 'finish') {
      return { kind: 'started', parts: replay(held, iterator, false) };
    }
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
