/**
 * A response body read from `chunks` only as the client takes it: the next chunk (an export's next batch
 * of rows) is asked for when the last has gone out, and a client that goes away ends the source, so a
 * cancelled download reads nothing more.
 */
export function pullStream(chunks: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
