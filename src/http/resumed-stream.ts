import { SERVER_STOPPED_MESSAGE } from '../assistant/answer-stream.ts';
import { DONE_CHUNK, sseChunk } from '../assistant/ui-message-stream.ts';
import { AnswerWriterGoneError } from '../streams/resumable-streams.ts';
import type { TextSink } from './streamed-response.ts';

const INTERRUPTED = {
  stopped: SERVER_STOPPED_MESSAGE,
  unreachable: 'The answer can no longer be followed (its server cannot be reached). Ask again to get it.',
} as const;

/**
 * Copies a resumed v2 answer to its reader until it ends or the reader leaves (`left`). Should the
 * server writing it stop mid-answer, or the Redis carrying it go away, the reader gets an `error` chunk
 * and the end of the stream instead of a stream that never ends.
 */
export async function relayResumed(stream: ReadableStream<string>, sink: TextSink, left: AbortSignal) {
  const reader = stream.getReader();
  // Gone while the resume was being looked up: the stream is let go at once, so the writer stops
  // counting this reader.
  if (left.aborted) {
    await reader.cancel().catch(() => {});
    return;
  }
  left.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return;
      sink.write(next.value);
    }
  } catch (error) {
    if (!(error instanceof AnswerWriterGoneError)) throw error;
    sink.write(sseChunk({ type: 'error', errorText: INTERRUPTED[error.reason] }) + DONE_CHUNK);
  }
}
