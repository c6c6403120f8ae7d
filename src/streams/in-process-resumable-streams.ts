import { graceAfterLeaving, RESUMABLE_TTL_SECONDS, type ResumableStreams } from './resumable-streams.ts';

/** Answers one process keeps resumable at once; past it, the oldest stops being resumable (not stopped). */
export const MAX_IN_PROCESS_ANSWERS = 10_000;

interface Recording {
  /** `Date.now()` when the answer started: past RESUMABLE_TTL_SECONDS it is no longer resumable. */
  startedAt: number;
  chunks: string[];
  followers: Set<ReadableStreamDefaultController<string>>;
  /** A resumer started reading; the function it returns says that resumer left. */
  attached(): () => void;
  ended: boolean;
}

/**
 * Resumable answers for a server that is one process (no `REDIS_URL`): the answer's chunks are kept in
 * an array while it runs, and a resumer gets them from the start and then live. Same contract as
 * `createResumableStreams` (the `resumable-stream` package over Redis, for several processes), without
 * its pub/sub round trips and per-answer web streams, which cost the v2 endpoint about a tenth of its
 * throughput (`npm run bench:resume` compares the two in one run).
 */
export function createInProcessResumableStreams(options: { graceMs?: number } = {}): ResumableStreams {
  // A Map in insertion order, oldest answer first: bounded by count and age as an LRU cache would be,
  // without lru-cache's cost of emptying itself (deleting its last entry clears every slot of its
  // `max`-sized arrays: 38 µs for each v2 answer when answers do not overlap, as at one client).
  const recordings = new Map<string, Recording>();
  const ttlMs = RESUMABLE_TTL_SECONDS * 1_000;
  const expired = (recording: Recording, now: number): boolean => now - recording.startedAt > ttlMs;
  return {
    record: (chat, gone) => {
      const graceful = graceAfterLeaving(gone, options.graceMs);
      const now = Date.now();
      const recording: Recording = {
        startedAt: now,
        chunks: [],
        followers: new Set(),
        attached: () => graceful.attached(recording.chunks.length > 0),
        ended: false,
      };
      // Resumable from the start (a reload while the answer is still searching or waiting for the
      // model's first word finds it), and the chat's earlier answer, should this one end without a chunk
      // (a request refused before its answer starts), is the chat's again.
      const previous = recordings.get(chat);
      // Re-inserted, so a chat's newer answer counts as the newest entry.
      recordings.delete(chat);
      recordings.set(chat, recording);
      for (const [oldest, entry] of recordings) {
        if (recordings.size <= MAX_IN_PROCESS_ANSWERS && !expired(entry, now)) break;
        recordings.delete(oldest);
      }
      return {
        write: (text) => {
          if (recording.ended) return;
          recording.chunks.push(text);
          for (const follower of recording.followers) follower.enqueue(text);
        },
        end: () => {
          if (recording.ended) return;
          recording.ended = true;
          for (const follower of recording.followers) follower.close();
          recording.followers.clear();
          // Nothing is in flight for the chat any more (a newer answer may have replaced this one).
          if (recordings.get(chat) === recording) {
            recordings.delete(chat);
            if (recording.chunks.length === 0 && previous !== undefined && !previous.ended)
              recordings.set(chat, previous);
          }
          graceful.release();
        },
        gone: graceful.gone,
      };
    },

    resume: async (chat) => {
      const recording = recordings.get(chat);
      if (!recording || expired(recording, Date.now())) return undefined;
      const detach = recording.attached();
      let follower: ReadableStreamDefaultController<string> | undefined;
      return new ReadableStream<string>({
        start: (controller) => {
          follower = controller;
          for (const chunk of recording.chunks) controller.enqueue(chunk);
          recording.followers.add(controller);
        },
        cancel: () => {
          if (follower) recording.followers.delete(follower);
          detach();
        },
      });
    },
  };
}
