import { LRUCache } from 'lru-cache';
import { graceAfterLeaving, RESUMABLE_TTL_SECONDS, type ResumableStreams } from './resumable-streams.ts';

/** Answers one process keeps resumable at once; past it, the oldest stops being resumable (not stopped). */
export const MAX_IN_PROCESS_ANSWERS = 10_000;

interface Recording {
  chunks: string[];
  followers: Set<ReadableStreamDefaultController<string>>;
  attached(): void;
}

/**
 * Resumable answers for a server that is one process (no `REDIS_URL`): the answer's chunks are kept in
 * an array while it runs, and a resumer gets them from the start and then live. Same contract as
 * `createResumableStreams` (the `resumable-stream` package over Redis, for several processes), without
 * its pub/sub round trips and per-answer web streams, which cost the v2 endpoint about a tenth of its
 * throughput (`npm run bench:resume` compares the two in one run).
 */
export function createInProcessResumableStreams(options: { graceMs?: number } = {}): ResumableStreams {
  const recordings = new LRUCache<string, Recording>({
    max: MAX_IN_PROCESS_ANSWERS,
    ttl: RESUMABLE_TTL_SECONDS * 1_000,
    ttlAutopurge: false,
  });
  return {
    record: (chat, gone) => {
      const graceful = graceAfterLeaving(gone, options.graceMs);
      const recording: Recording = { chunks: [], followers: new Set(), attached: graceful.attached };
      recordings.set(chat, recording);
      let done = false;
      return {
        write: (text) => {
          if (done) return;
          recording.chunks.push(text);
          for (const follower of recording.followers) follower.enqueue(text);
        },
        end: () => {
          if (done) return;
          done = true;
          for (const follower of recording.followers) follower.close();
          recording.followers.clear();
          // Nothing is in flight for the chat any more (a newer answer may have replaced this one).
          if (recordings.peek(chat) === recording) recordings.delete(chat);
          graceful.release();
        },
        gone: graceful.gone,
      };
    },

    resume: async (chat) => {
      const recording = recordings.get(chat);
      if (!recording) return undefined;
      recording.attached();
      let follower: ReadableStreamDefaultController<string> | undefined;
      return new ReadableStream<string>({
        start: (controller) => {
          follower = controller;
          for (const chunk of recording.chunks) controller.enqueue(chunk);
          recording.followers.add(controller);
        },
        cancel: () => {
          if (follower) recording.followers.delete(follower);
        },
      });
    },
  };
}
