/**
 * The answers this process is writing, whether or not a reader still holds their connection: a v2
 * answer whose reader left goes on for resuming. A server shutting down waits for them (its grace
 * period, then their stored `aborted` status) before it closes storage.
 */
export class RunningAnswers {
  readonly #running = new Set<Promise<unknown>>();

  /** Runs `answer`, tracked until it settles. */
  track<T>(answer: Promise<T>): Promise<T> {
    this.#running.add(answer);
    const untrack = () => {
      this.#running.delete(answer);
    };
    answer.then(untrack, untrack);
    return answer;
  }

  get size(): number {
    return this.#running.size;
  }

  /** Resolves once no answer is running, those started meanwhile included. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
