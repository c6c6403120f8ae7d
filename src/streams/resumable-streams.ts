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
  /**
   * Whether anyone reads the answer now, or has resumed it (a resumer gets all of it): text written
   * while this is false reaches nobody unless it turns true later. Absent: whoever is not `aborted`.
   */
  heard?(): boolean;
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

/** A stream id's writer: the process id (a UUID) after its last dot. */
const WRITER_SUFFIX = /\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * A resumed answer that can no longer be followed, so the resumer ends it: its writing process stopped
 * answering (`stopped`: it died), or the pub/sub that carries it cannot be reached (`unreachable`:
 * Redis went away, and with it the answer's chunks and any sign of its writer).
 */
export class AnswerWriterGoneError extends Error {
  override name = 'AnswerWriterGoneError';
  constructor(readonly reason: 'stopped' | 'unreachable') {
    super(
      reason === 'stopped'
        ? 'the process writing this answer stopped'
        : 'the pub/sub carrying this answer cannot be reached',
    );
  }
}

/**
 * How a resumer on another process tells that the answer's writer is alive: each writing process
 * refreshes a key every `refreshMs` that lives `ttlSeconds`; a resumer that has had nothing for
 * `checkMs` looks for it, and ends its stream when it is gone.
 */
export interface WriterLiveness {
  ttlSeconds: number;
  refreshMs: number;
  checkMs: number;
}

export const DEFAULT_WRITER_LIVENESS: WriterLiveness = { ttlSeconds: 10, refreshMs: 3_000, checkMs: 5_000 };

export function createResumableStreams(
  pubSub: PubSub,
  options: { keyPrefix?: string; graceMs?: number; liveness?: WriterLiveness } = {},
): ResumableStreams {
  const keyPrefix = options.keyPrefix ?? 'docent';
  const graceMs = options.graceMs ?? DEFAULT_RESUME_GRACE_MS;
  const liveness = options.liveness ?? DEFAULT_WRITER_LIVENESS;
  // Streams of this process that a resumer asked for: the package's request channel is
  // `<prefix>:rs:request:<streamId>`, and a request on it means someone is reading again.
  const attachHandlers = new Map<string, () => void>();
  // What each attached resumer's leaving undoes, by stream: a resumer says it left on LEFT.
  const detachers = new Map<string, (() => void)[]>();
  const REQUEST = `${keyPrefix}:rs:request:`;
  const LEFT = `${keyPrefix}:left`;
  const writerId = crypto.randomUUID();
  const writerKey = (id: string): string => `${keyPrefix}:writer:${id}`;
  const subscriber: Subscriber = {
    connect: () => pubSub.subscriber.connect(),
    subscribe: (channel, callback) =>
      pubSub.subscriber.subscribe(channel, (message) => {
        if (channel.startsWith(REQUEST)) attachHandlers.get(channel.slice(REQUEST.length))?.();
        callback(message);
      }),
    unsubscribe: (channel) => pubSub.subscriber.unsubscribe(channel).catch(() => undefined),
  };
  // The package calls these from its read loop, its message handlers and its timers without handling
  // their rejections: with Redis gone, an answer ending there ended the process (an unhandled rejection).
  // They only tell resumers about the answer, so one that fails is let go; the chat's pointer, read and
  // written here on `pubSub` itself, still fails loudly, so a resume says Redis is unavailable.
  const publisher: Publisher = {
    connect: () => pubSub.publisher.connect(),
    publish: (channel, message) => pubSub.publisher.publish(channel, message).catch(() => 0),
    // The package keeps each answer's sentinel (`DONE` once it ends) 24 hours, but an answer is found only
    // through its chat's pointer, which lives RESUMABLE_TTL_SECONDS from the answer's start: the sentinel,
    // set at the start and again at the end, outlives it as well with that TTL. With 24 hours Redis kept a
    // key per answer of the last day (a soak: 2,100 keys after 4 minutes, still growing).
    set: (key, value, options) =>
      pubSub.publisher
        .set(
          key,
          value,
          options?.EX === undefined ? options : { EX: Math.min(options.EX, RESUMABLE_TTL_SECONDS) },
        )
        .catch(() => null),
    get: (key) => pubSub.publisher.get(key).catch(() => null),
    incr: (key) => pubSub.publisher.incr(key),
  };
  const context = createResumableStreamContext({ keyPrefix, waitUntil: null, publisher, subscriber });
  const pointer = (chat: string): string => `${keyPrefix}:chat:${chat}`;

  let listening = false;
  const listenForLeaving = (): void => {
    if (listening) return;
    listening = true;
    pubSub.subscriber
      .subscribe(LEFT, (streamId) => detachers.get(streamId)?.pop()?.())
      .catch(() => {
        // Tried again with the next answer.
        listening = false;
      });
  };
  // This process's liveness key, refreshed while it writes answers.
  let writing = 0;
  let heartbeat: NodeJS.Timeout | undefined;
  const beat = (): void => {
    pubSub.publisher.set(writerKey(writerId), '1', { EX: liveness.ttlSeconds }).catch(() => {});
  };
  const startWriting = (): void => {
    if (writing++ > 0) return;
    beat();
    heartbeat = setInterval(beat, liveness.refreshMs);
    heartbeat.unref();
  };
  const stopWriting = (): void => {
    if (--writing > 0) return;
    clearInterval(heartbeat);
    heartbeat = undefined;
  };

  return {
    record: (chat, gone) => {
      // Ends in this process's id, which a resumer reads to ask whether the writer is alive.
      const streamId = `${chat}:${crypto.randomUUID()}.${writerId}`;
      let controller!: ReadableStreamDefaultController<string>;
      const copy = new ReadableStream<string>({
        start: (c) => {
          controller = c;
        },
      });
      let wrote = false;
      let done = false;
      const graceful = graceAfterLeaving(gone, graceMs);
      startWriting();
      listenForLeaving();
      const leaving: (() => void)[] = [];
      detachers.set(streamId, leaving);
      attachHandlers.set(streamId, () => leaving.push(graceful.attached(wrote)));
      // Resumable from the start (a reload while the answer is still searching or waiting for the
      // model's first word finds it). The chat's earlier answer is remembered: should this one end
      // without a chunk (a request refused before its answer starts), the chat points to it again.
      let previous: string | null = null;
      const registered = pubSub.publisher
        .get(pointer(chat))
        .then((id) => {
          previous = typeof id === 'string' ? id : null;
          return pubSub.publisher.set(pointer(chat), streamId, { EX: RESUMABLE_TTL_SECONDS });
        })
        // The package's own copy for a first reader is left unread (Docent writes to that reader
        // itself) and dropped with the answer: cancelling it would make the package throw and catch an
        // error on every later chunk (profiled: ~16 µs per built-in answer, more per provider token).
        .then(() => context.createNewResumableStream(streamId, () => copy))
        .then(
          () => true,
          // Not resumable then (pub/sub down); the first reader still gets the whole answer.
          () => false,
        );
      return {
        write: (text) => {
          if (done) return;
          wrote = true;
          controller.enqueue(text);
        },
        end: () => {
          if (done) return;
          done = true;
          controller.close();
          graceful.release();
          attachHandlers.delete(streamId);
          detachers.delete(streamId);
          stopWriting();
          if (wrote) return;
          void registered
            .then(async (ok) => {
              const earlier = previous;
              if (!ok || earlier === null) return;
              // Not a compare-and-set (the package's publisher has none): a newer answer that took the
              // chat in between is overwritten only if it set the pointer after this read.
              if ((await pubSub.publisher.get(pointer(chat))) === streamId)
                await pubSub.publisher.set(pointer(chat), earlier, { EX: RESUMABLE_TTL_SECONDS });
            })
            .catch(() => {});
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
        // The writer counts this resumer as a reader from its request on, until it hears it left.
        const left = () => pubSub.publisher.publish(LEFT, streamId).then(() => {});
        if (resumed === 'waited') {
          // The package neither found the writer nor gave up (its one-second wait ends in neither when
          // its timer fires exactly on the second): nothing in flight. Should it find one after all, it
          // is let go.
          resuming.then(
            (late) => {
              if (late) void Promise.allSettled([late.cancel(), left()]);
            },
            () => {},
          );
          return undefined;
        }
        if (!resumed) return undefined;
        // A pointer an older version wrote has no writer id: its writer's liveness is not known.
        const writer = WRITER_SUFFIX.exec(streamId)?.[1];
        return followed(resumed, {
          left,
          writerAlive: async () =>
            writer === undefined || (await pubSub.publisher.get(writerKey(writer))) !== null,
          checkMs: liveness.checkMs,
        });
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

/**
 * A resumed answer as its resumer reads it: says when the resumer leaves, and errors with
 * AnswerWriterGoneError when nothing came for `checkMs` and the writing process's key is gone (it died
 * mid-answer; the package would wait for its next chunk forever).
 */
function followed(
  inner: ReadableStream<string>,
  watch: { left(): Promise<void>; writerAlive(): Promise<boolean>; checkMs: number },
): ReadableStream<string> {
  const reader = inner.getReader();
  let last = Date.now();
  let over = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (): void => {
    over = true;
    clearInterval(timer);
  };
  return new ReadableStream<string>({
    start: (controller) => {
      // Two looks in a row without the writer's key: one could be a key evicted or expiring just
      // as the writer refreshes it. A look that fails counts too: the pub/sub it asks is the one that
      // would bring the answer's next chunks, so the resumer would otherwise wait for ever.
      let missed = 0;
      const miss = (reason: 'stopped' | 'unreachable'): void => {
        missed++;
        if (missed < 2 || over) return;
        finish();
        controller.error(new AnswerWriterGoneError(reason));
        void Promise.allSettled([watch.left(), reader.cancel()]);
      };
      timer = setInterval(() => {
        if (over || Date.now() - last < watch.checkMs) return;
        watch.writerAlive().then(
          (alive) => {
            if (alive) missed = 0;
            else miss('stopped');
          },
          () => miss('unreachable'),
        );
      }, watch.checkMs);
      timer.unref();
    },
    pull: async (controller) => {
      const next = await reader.read();
      if (over) return;
      last = Date.now();
      if (next.done) {
        finish();
        controller.close();
      } else controller.enqueue(next.value);
    },
    cancel: async () => {
      finish();
      await Promise.allSettled([watch.left(), reader.cancel()]);
    },
  });
}

/**
 * `gone` that turns true once nobody has been reading for `graceMs`: the first reader (until its
 * connection goes) and each resumer (from `attached` until the detach it returns is called) count as
 * readers, so a reader who stops after a reload stops the answer as the first reader's stop does.
 */
export function graceAfterLeaving(
  gone: Gone,
  graceMs = DEFAULT_RESUME_GRACE_MS,
): { gone: Gone; attached(afterText?: boolean): () => void; release(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let readers = gone.signal.aborted ? 0 : 1;
  let resumed = false;
  let released = false;
  const settle = (): void => {
    if (released || controller.signal.aborted) return;
    if (readers > 0) {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    } else {
      timer ??= setTimeout(() => controller.abort(gone.signal.reason), graceMs);
    }
  };
  const onLeave = (): void => {
    readers--;
    settle();
  };
  if (gone.signal.aborted) settle();
  else gone.signal.addEventListener('abort', onLeave, { once: true });
  return {
    gone: {
      get aborted() {
        return controller.signal.aborted;
      },
      signal: controller.signal,
      heard: () => readers > 0 || resumed,
    },
    attached: (afterText = true) => {
      // A resumer who came once some of the answer was written gets all of it (the replay).
      if (afterText) resumed = true;
      readers++;
      settle();
      let detached = false;
      return () => {
        if (detached) return;
        detached = true;
        readers--;
        settle();
      };
    },
    release: () => {
      released = true;
      if (timer !== undefined) clearTimeout(timer);
      gone.signal.removeEventListener('abort', onLeave);
    },
  };
}
