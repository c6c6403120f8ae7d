/**
 * Lets the event loop serve the I/O that arrived while this task ran (a `/healthz` poll, another
 * site's request) before the task goes on.
 *
 * One `setImmediate` is not enough: awaited from an I/O callback (a request, a worker's message, a
 * socket's data), the immediate runs in the same loop iteration's check phase, straight after the poll
 * phase that ran the callback, so nothing that arrived meanwhile is read before the work resumes. An
 * immediate scheduled from the check phase runs in the next iteration, after its poll phase. Awaiting
 * two therefore always passes a poll phase, whichever phase the caller started in.
 */
export function yieldToIo(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
