/**
 * Answers a reader can pick up again after a dropped connection or a reload (AI SDK 5+ `useChat` with
 * `resume: true` asks `GET …/{chatId}/stream`). Built on `resumable-stream`, the ecosystem's package for
 * this: the process writing an answer keeps its text and hands it, from the start and then live, to any
 * process that asks over pub/sub, Redis when configured (several processes) or `MemoryPubSub` (one).
 *
 * The answer is written to its first reader directly; the package only gets a copy (its own read loop
 * of the copy feeds resumers), so the first reader pays nothing for it but a buffer.
 */
import crypto from 'node:crypto';
import { createResumableStreamContext, type Publisher, type Subscriber } from 'resumable-stream/generic';
import { DomainError } from '../errors/domain-error.ts';

/** What `resumable-stream` rejects a resume with when no process answers for the stream (it died). */
export const NO_WRITER_MESSAGE = 'Timeout waiting for ack';
/** How long a resume waits for the package to find the answer's writer (its own wait is one second). */
export const MAX_RESUME_WAIT_MS = 3_000;

/** How long an answer stays resumable (and its chat's pointer to it) after it starts. */
export const RESUMABLE_TTL_SECONDS = 3_600;
/**
 * How long an answer goes on after its reader leaves, waiting for the reader to come back (a reload);
 * if nobody resumes it by then it stops, so a reader's "stop" ends the model's work too.
 */
export const DEFAULT_RESUME_GRACE_MS = 5_000;

export interface PubSub {
  publisher: Publisher;
  subscriber: Subscriber;
}

/** The reader's connection as the answer sees it. */
export interface Gone {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
}

export interface RecordedStream {
  write(text: string): void;
  end(): void;
  /**
   * `gone` (the first reader's connection) as the answer should see it: gone only once the reader
   * has been away `graceMs` without anyone resuming the stream.
   */
  readonly gone: Gone;
}

export interface ResumableStreams {
  /** Starts recording the answer of `chat` (a site's chat id), replacing any earlier one of that chat. */
  record(chat: string, gone: Gone): RecordedStream;
  /** The chat's answer in flight, from its start and following it live; undefined when none is. */
  resume(chat: string): Promise<ReadableStream<string> | undefined>;
}

export function createResumableStreams(
  pubSub: PubSub,
  options: { keyPrefix?: string; graceMs?: number } = {},
): ResumableStreams {
  const keyPrefix = options.keyPrefix ?? 'docent';
  const graceMs = options.graceMs ?? DEFAULT_RESUME_GRACE_MS;
  // Streams of this process that a resumer asked for: the package's request channel is
  // `<prefix>:rs:request:<streamId>`, and a request on it means someone is reading again.
  const attachHandlers = new Map<string, () => void>();
  const REQUEST = `${keyPrefix}:rs:request:`;
  const subscriber: Subscriber = {
    connect: () => pubSub.subscriber.connect(),
    subscribe: (channel, callback) =>
      pubSub.subscriber.subscribe(channel, (message) => {
        if (channel.startsWith(REQUEST)) attachHandlers.get(channel.slice(REQUEST.length))?.();
        callback(message);
      }),
    unsubscribe: (channel) => pubSub.subscriber.unsubscribe(channel),
  };
  const context = createResumableStreamContext({
    keyPrefix,
    waitUntil: null,
    publisher: pubSub.publisher,
    subscriber,
  });
  const pointer = (chat: string): string => `${keyPrefix}:chat:${chat}`;

  return {
    record: (chat, gone) => {
      const streamId = `${chat}:${crypto.randomUUID()}`;
      let controller!: ReadableStreamDefaultController<string>;
      const copy = new ReadableStream<string>({
        start: (c) => {
          controller = c;
        },
      });
      let done = false;
      const graceful = graceAfterLeaving(gone, graceMs);
      attachHandlers.set(streamId, graceful.attached);
      pubSub.publisher
        .set(pointer(chat), streamId, { EX: RESUMABLE_TTL_SECONDS })
        // The package's own copy for a first reader is left unread (Docent writes to that reader itself)
        // and dropped with the answer: cancelling it would make the package throw and catch an error on
        // every later chunk (profiled: ~16 µs per built-in answer, more per provider token).
        .then(() => context.createNewResumableStream(streamId, () => copy))
        .catch(() => {
          // Not resumable then (pub/sub down); the first reader still gets the whole answer.
        });
      return {
        write: (text) => {
          if (!done) controller.enqueue(text);
        },
        end: () => {
          if (done) return;
          done = true;
          controller.close();
          attachHandlers.delete(streamId);
          graceful.release();
        },
        gone: graceful.gone,
      };
    },

    resume: async (chat) => {
      try {
        const streamId = await pubSub.publisher.get(pointer(chat));
        if (typeof streamId !== 'string') return undefined;
        const resuming = context.resumeExistingStream(streamId);
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<'waited'>((resolve) => {
          timer = setTimeout(() => resolve('waited'), MAX_RESUME_WAIT_MS);
        });
        const resumed = await Promise.race([resuming, waited]).finally(() => clearTimeout(timer));
        if (resumed !== 'waited') return resumed ?? undefined;
        // The package neither found the writer nor gave up (its one-second wait ends in neither when its
        // timer fires exactly on the second): nothing in flight. Should it find one after all, it is let go.
        resuming.then(
          (late) => late?.cancel(),
          () => {},
        );
        return undefined;
      } catch (error) {
        // The process writing it died (its pointer and the package's "in progress" mark outlive it, for
        // an hour and a day): nobody answers the package's request, so nothing is in flight. Its answer
        // is settled by crash recovery (stored aborted, the credit given back).
        if (error instanceof Error && error.message === NO_WRITER_MESSAGE) return undefined;
        throw new DomainError('unavailable', 'Answers in flight cannot be read back right now; try again', {
          cause: error,
        });
      }
    },
  };
}

/** `gone` that turns true `graceMs` after the reader left, unless `attached` was called first. */
export function graceAfterLeaving(
  gone: Gone,
  graceMs = DEFAULT_RESUME_GRACE_MS,
): { gone: Gone; attached(): void; release(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let attached = false;
  const onLeave = (): void => {
    if (attached) return;
    timer = setTimeout(() => controller.abort(gone.signal.reason), graceMs);
  };
  if (gone.signal.aborted) onLeave();
  else gone.signal.addEventListener('abort', onLeave, { once: true });
  return {
    gone: {
      get aborted() {
        return controller.signal.aborted;
      },
      signal: controller.signal,
    },
    attached: () => {
      attached = true;
      if (timer !== undefined) clearTimeout(timer);
    },
    release: () => {
      if (timer !== undefined) clearTimeout(timer);
      gone.signal.removeEventListener('abort', onLeave);
    },
  };
}
