import crypto from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { testRedisUrl } from '../testing/services.ts';
import { createInProcessResumableStreams, MAX_IN_PROCESS_ANSWERS } from './in-process-resumable-streams.ts';
import { MemoryPubSub } from './memory-pub-sub.ts';
import { RedisPubSub } from './redis-pub-sub.ts';
import {
  AnswerWriterGoneError,
  createResumableStreams,
  type Gone,
  MAX_RESUME_WAIT_MS,
  type PubSub,
  RESUMABLE_TTL_SECONDS,
  type ResumableStreams,
} from './resumable-streams.ts';

/** A reader's connection the test can drop. */
function connection(): Gone & { drop(): void } {
  const controller = new AbortController();
  return {
    get aborted() {
      return controller.signal.aborted;
    },
    signal: controller.signal,
    drop: () => controller.abort(),
  };
}

async function readAll(stream: ReadableStream<string>): Promise<string> {
  let out = '';
  for await (const text of stream as unknown as AsyncIterable<string>) out += text;
  return out;
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const opened: RedisPubSub[] = [];
afterAll(async () => {
  await Promise.all(opened.map((p) => p.close()));
});

const redisUrl = testRedisUrl();

/** The writing and the resuming side, each as a process would build it. */
type Sides = (graceMs: number) => Promise<[ResumableStreams, ResumableStreams]>;

const overPubSub =
  (open: () => Promise<[PubSub, PubSub]>): Sides =>
  async (graceMs) => {
    const [a, b] = await open();
    const keyPrefix = `docent-test:${crypto.randomUUID()}`;
    return [
      createResumableStreams(a, { keyPrefix, graceMs }),
      createResumableStreams(b, { keyPrefix, graceMs }),
    ];
  };

/**
 * One process keeping answers itself (what a server without Redis runs); the package over one process's
 * memory; and two "processes", each its own pub/sub connections, over one Redis. Redis is left out only
 * off CI with no Redis to be had; the test run's first lines say so.
 */
const backends: [string, Sides][] = [
  [
    'one process (in-process recorder)',
    async (graceMs) => {
      const streams = createInProcessResumableStreams({ graceMs });
      return [streams, streams];
    },
  ],
  [
    'the package in one process (memory pub/sub)',
    overPubSub(async () => {
      const shared = new MemoryPubSub();
      return [shared, shared];
    }),
  ],
];
if (redisUrl !== null)
  backends.push([
    'two processes over Redis',
    overPubSub(async () => {
      const pair = await Promise.all([RedisPubSub.connect(redisUrl), RedisPubSub.connect(redisUrl)]);
      opened.push(...pair);
      return pair;
    }),
  ]);

describe.each(backends)('resumable answers, %s', (_label, open) => {
  it('replays an answer in flight from its start, follows it live, and ends with it', async () => {
    const [writer, reader] = await open(5_000);
    const chat = `site:${crypto.randomUUID()}`;
    const recorded = writer.record(chat, connection());
    recorded.write('data: one\n\n');
    recorded.write('data: two\n\n');
    await tick(50);
    const resumed = await reader.resume(chat);
    if (!resumed) throw new Error('nothing to resume');
    const reading = readAll(resumed);
    recorded.write('data: three\n\n');
    await tick(20);
    recorded.end();
    expect(await reading).toBe('data: one\n\ndata: two\n\ndata: three\n\n');
    // Done: nothing in flight any more.
    await tick(50);
    expect(await reader.resume(chat)).toBeUndefined();
    expect(await reader.resume(`site:${crypto.randomUUID()}`)).toBeUndefined();
  });

  it("stops a left reader's answer after the grace period unless someone resumes it", async () => {
    const [writer, reader] = await open(150);

    const left = connection();
    const abandoned = writer.record(`site:${crypto.randomUUID()}`, left);
    await tick(30);
    left.drop();
    expect(abandoned.gone.aborted).toBe(false);
    await tick(300);
    expect(abandoned.gone.aborted).toBe(true);
    abandoned.end();

    const chat = `site:${crypto.randomUUID()}`;
    const reloaded = connection();
    const resumedLater = writer.record(chat, reloaded);
    resumedLater.write('data: x\n\n');
    await tick(30);
    reloaded.drop();
    const stream = await reader.resume(chat);
    if (!stream) throw new Error('nothing to resume');
    const reading = readAll(stream);
    await tick(300);
    expect(resumedLater.gone.aborted).toBe(false);
    resumedLater.end();
    expect(await reading).toBe('data: x\n\n');
  });

  it("resumes a chat's newest answer, which an older one ending does not end", async () => {
    const [writer, reader] = await open(5_000);
    const chat = `site:${crypto.randomUUID()}`;
    const first = writer.record(chat, connection());
    first.write('data: old\n\n');
    const second = writer.record(chat, connection());
    second.write('data: new\n\n');
    first.end();
    await tick(50);
    const resumed = await reader.resume(chat);
    if (!resumed) throw new Error('nothing to resume');
    const reading = readAll(resumed);
    await tick(20);
    second.end();
    expect(await reading).toBe('data: new\n\n');
  });

  it('stops the answer once a resumer leaves too, after the grace period', async () => {
    const [writer, reader] = await open(150);
    const chat = `site:${crypto.randomUUID()}`;
    const first = connection();
    const recorded = writer.record(chat, first);
    recorded.write('data: x\n\n');
    await tick(30);
    first.drop();
    const stream = await reader.resume(chat);
    if (!stream) throw new Error('nothing to resume');
    const following = stream.getReader();
    await following.read();
    await tick(300);
    // Read all along: the answer goes on.
    expect(recorded.gone.aborted).toBe(false);
    await following.cancel();
    await tick(400);
    expect(recorded.gone.aborted).toBe(true);
    recorded.end();
  });

  it('is resumable before its first chunk, and a resumer who leaves before it does not count as reading it', async () => {
    const [writer, reader] = await open(5_000);
    const chat = `site:${crypto.randomUUID()}`;
    const first = connection();
    // Still searching, or waiting for the model's first word: nothing written yet.
    const recorded = writer.record(chat, first);
    await tick(50);
    const early = await reader.resume(chat);
    if (!early) throw new Error('not resumable before its first chunk');
    await early.cancel();
    const stream = await reader.resume(chat);
    if (!stream) throw new Error('not resumable before its first chunk');
    const reading = readAll(stream);
    first.drop();
    await tick(50);
    // The resumer still reads; the one who left before any text did not make the answer heard.
    expect(recorded.gone.heard?.()).toBe(true);
    recorded.write('data: words\n\n');
    await tick(20);
    recorded.end();
    expect(await reading).toBe('data: words\n\n');
  });

  it("leaves a chat's answer in flight resumable when a later answer of the chat never starts", async () => {
    const [writer, reader] = await open(5_000);
    const chat = `site:${crypto.randomUUID()}`;
    const running = writer.record(chat, connection());
    running.write('data: running\n\n');
    await tick(50);
    // Refused before its first chunk (a wrong thread key, no credits left): nothing of it is recorded.
    writer.record(chat, connection()).end();
    await tick(50);
    const resumed = await reader.resume(chat);
    if (!resumed) throw new Error('the answer in flight is no longer resumable');
    const reading = readAll(resumed);
    await tick(20);
    running.end();
    expect(await reading).toBe('data: running\n\n');
  });
});

const pubSubs: [string, () => Promise<PubSub>][] = [['memory pub/sub', async () => new MemoryPubSub()]];
if (redisUrl !== null)
  pubSubs.push([
    'Redis',
    async () => {
      const pubSub = await RedisPubSub.connect(redisUrl);
      opened.push(pubSub);
      return pubSub;
    },
  ]);

describe.each(pubSubs)('what an answer leaves in the pub/sub store, %s', (_label, open) => {
  it('keeps no key longer than the answer stays resumable', async () => {
    // Found by a soak over Redis: every answer left the package's `DONE` sentinel for 24 hours, though
    // nothing reaches it after its chat's pointer expires (RESUMABLE_TTL_SECONDS).
    const pubSub = await open();
    const ttls: number[] = [];
    const observed: PubSub = {
      subscriber: pubSub.subscriber,
      publisher: {
        ...pubSub.publisher,
        set: (key, value, options) => {
          ttls.push(options?.EX ?? Number.POSITIVE_INFINITY);
          return pubSub.publisher.set(key, value, options);
        },
      },
    };
    const streams = createResumableStreams(observed, { keyPrefix: `docent-test:${crypto.randomUUID()}` });
    const recorded = streams.record(`site:${crypto.randomUUID()}`, connection());
    recorded.write('data: one\n\n');
    await tick(50);
    recorded.end();
    await tick(100);
    // The sentinel at the start and `DONE` at the end, at least.
    expect(ttls.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...ttls)).toBeLessThanOrEqual(RESUMABLE_TTL_SECONDS);
  });
});

describe('in-process recorder bounds', () => {
  it('keeps at most MAX_IN_PROCESS_ANSWERS answers, the oldest going first, and none past the TTL', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const streams = createInProcessResumableStreams({ graceMs: 5_000 });
      const recorded = Array.from({ length: MAX_IN_PROCESS_ANSWERS + 1 }, (_, i) => {
        const recording = streams.record(`chat-${i}`, connection());
        recording.write(`data: ${i}\n\n`);
        return recording;
      });
      expect(await streams.resume('chat-0')).toBeUndefined();
      const second = await streams.resume('chat-1');
      if (!second) throw new Error('chat-1 is not resumable');
      recorded[1]?.end();
      expect(await readAll(second)).toBe('data: 1\n\n');
      // Ended answers are not resumable; one still running is, until it is older than the TTL.
      expect(await streams.resume('chat-1')).toBeUndefined();
      expect(await streams.resume(`chat-${MAX_IN_PROCESS_ANSWERS}`)).toBeDefined();
      vi.setSystemTime(Date.now() + RESUMABLE_TTL_SECONDS * 1_000 + 1);
      expect(await streams.resume(`chat-${MAX_IN_PROCESS_ANSWERS}`)).toBeUndefined();
      for (const recording of recorded) recording.end();
    } finally {
      vi.useRealTimers();
    }
  });
});

/** A process's pub/sub that can die: after `kill`, its subscriptions hear nothing (its keys stay). */
function killable(pubSub: PubSub): PubSub & { kill(): void } {
  let alive = true;
  return {
    // A dead process writes nothing more: no chunks, no liveness key.
    publisher: {
      ...pubSub.publisher,
      connect: () => pubSub.publisher.connect(),
      get: (key) => pubSub.publisher.get(key),
      incr: (key) => pubSub.publisher.incr(key),
      publish: (channel, message) =>
        alive ? pubSub.publisher.publish(channel, message) : Promise.resolve(0),
      set: (key, value, options) =>
        alive ? pubSub.publisher.set(key, value, options) : Promise.resolve('OK'),
    },
    subscriber: {
      connect: () => pubSub.subscriber.connect(),
      subscribe: (channel, callback) =>
        pubSub.subscriber.subscribe(channel, (message) => {
          if (alive) callback(message);
        }),
      unsubscribe: (channel) => pubSub.subscriber.unsubscribe(channel),
    },
    kill: () => {
      alive = false;
    },
  };
}

const pubSubPairs: [string, () => Promise<[PubSub, PubSub]>][] = [
  [
    'memory pub/sub',
    async () => {
      const shared = new MemoryPubSub();
      return [shared, shared];
    },
  ],
];
if (redisUrl !== null)
  pubSubPairs.push([
    'two processes over Redis',
    async () => {
      const pair = await Promise.all([RedisPubSub.connect(redisUrl), RedisPubSub.connect(redisUrl)]);
      opened.push(...pair);
      return pair;
    },
  ]);

describe.each(pubSubPairs)('a resume after the writing process died, %s', (_label, open) => {
  it('finds nothing in flight (the package gets no answer from the writer) instead of failing', async () => {
    const [a, b] = await open();
    const keyPrefix = `docent-test:${crypto.randomUUID()}`;
    const dying = killable(a);
    const writer = createResumableStreams(dying, { keyPrefix });
    const reader = createResumableStreams(b, { keyPrefix });
    const chat = `site:${crypto.randomUUID()}`;
    writer.record(chat, connection()).write('data: lost\n\n');
    await tick(50);
    dying.kill();
    // The chat's pointer and the package's "in progress" mark are still there: the package asks the
    // writer and gives up after its wait, rejecting with the message `NO_WRITER_MESSAGE` names (a new
    // version wording it otherwise fails here).
    expect(await reader.resume(chat)).toBeUndefined();
  });

  it('ends a resumed answer whose writing process dies while it is followed, instead of waiting forever', async () => {
    const [a, b] = await open();
    const keyPrefix = `docent-test:${crypto.randomUUID()}`;
    const liveness = { ttlSeconds: 1, refreshMs: 100, checkMs: 200 };
    const dying = killable(a);
    const writer = createResumableStreams(dying, { keyPrefix, liveness });
    const reader = createResumableStreams(b, { keyPrefix, liveness });
    const chat = `site:${crypto.randomUUID()}`;
    const recorded = writer.record(chat, connection());
    recorded.write('data: first\n\n');
    await tick(50);
    const resumed = await reader.resume(chat);
    if (!resumed) throw new Error('nothing to resume');
    const following = resumed.getReader();
    expect((await following.read()).value).toBe('data: first\n\n');
    // While the writer lives, a pause in its answer is only a pause.
    await tick(500);
    recorded.write('data: second\n\n');
    expect((await following.read()).value).toBe('data: second\n\n');
    dying.kill();
    const started = Date.now();
    await expect(following.read()).rejects.toBeInstanceOf(AnswerWriterGoneError);
    // The key lives a second past the last refresh; the reader looks every 200 ms.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

/** `shared` with its reads (`get`) replaced, as by a Redis whose reads hang or fail. */
function withReads(shared: MemoryPubSub, get: PubSub['publisher']['get']): PubSub {
  return {
    subscriber: shared.subscriber,
    publisher: {
      connect: () => shared.publisher.connect(),
      publish: (channel, message) => shared.publisher.publish(channel, message),
      set: (key, value, options) => shared.publisher.set(key, value, options),
      incr: (key) => shared.publisher.incr(key),
      get,
    },
  };
}

describe('a resume the package never settles', () => {
  it(`is nothing in flight after ${MAX_RESUME_WAIT_MS} ms, not a request that hangs`, async () => {
    const shared = new MemoryPubSub();
    let stalled = false;
    // A pub/sub whose reads stop answering (a Redis that hangs): the package's resume then never settles.
    const stalling = withReads(shared, (key) =>
      stalled && key.includes(':rs:') ? new Promise(() => {}) : shared.publisher.get(key),
    );
    const streams = createResumableStreams(stalling, { keyPrefix: `docent-test:${crypto.randomUUID()}` });
    const chat = `site:${crypto.randomUUID()}`;
    streams.record(chat, connection()).write('data: one\n\n');
    await tick(50);
    stalled = true;
    expect(await streams.resume(chat)).toBeUndefined();
  });
});

describe('a pub/sub that goes away while an answer is written (Redis stopped)', () => {
  it('ends the answer for its reader and leaves no rejection unhandled, which ended the process', async () => {
    const shared = new MemoryPubSub();
    let down = false;
    const unlessDown = <T>(call: () => Promise<T>): Promise<T> =>
      down ? Promise.reject(new Error('Connection is closed.')) : call();
    // Every command fails once Redis is gone, as ioredis's do after their retries.
    const failing: PubSub = {
      publisher: {
        connect: () => shared.publisher.connect(),
        publish: (channel, message) => unlessDown(() => shared.publisher.publish(channel, message)),
        set: (key, value, options) => unlessDown(() => shared.publisher.set(key, value, options)),
        get: (key) => unlessDown(() => shared.publisher.get(key)),
        incr: (key) => unlessDown(() => shared.publisher.incr(key)),
      },
      subscriber: {
        connect: () => shared.subscriber.connect(),
        subscribe: (channel, callback) => unlessDown(() => shared.subscriber.subscribe(channel, callback)),
        unsubscribe: (channel) => unlessDown(() => shared.subscriber.unsubscribe(channel)),
      },
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const streams = createResumableStreams(failing, { keyPrefix: `docent-test:${crypto.randomUUID()}` });
      const chat = `site:${crypto.randomUUID()}`;
      const recorded = streams.record(chat, connection());
      recorded.write('data: one\n\n');
      await tick(50);
      // A resumer, so the package publishes each chunk to it too.
      const resumed = await streams.resume(chat);
      if (!resumed) throw new Error('nothing to resume');
      const following = resumed.getReader();
      expect((await following.read()).value).toBe('data: one\n\n');
      down = true;
      recorded.write('data: two\n\n');
      recorded.end();
      // The package's ack wait and cleanups run on timers of a second.
      await tick(1_500);
      expect(unhandled).toEqual([]);
      await expect(streams.resume(chat)).rejects.toThrow('cannot be read back');
      await following.cancel();
      await tick(50);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('ends a resumed answer it can no longer follow, instead of waiting for chunks that cannot come', async () => {
    const shared = new MemoryPubSub();
    let down = false;
    const liveness = { ttlSeconds: 1, refreshMs: 100, checkMs: 200 };
    // The resumer's looks for the writer fail once its Redis is gone; the writer is still alive.
    const reading = withReads(shared, (key) =>
      down ? Promise.reject(new Error('Connection is closed.')) : shared.publisher.get(key),
    );
    const keyPrefix = `docent-test:${crypto.randomUUID()}`;
    const writer = createResumableStreams(shared, { keyPrefix, liveness });
    const resumer = createResumableStreams(reading, { keyPrefix, liveness });
    const chat = `site:${crypto.randomUUID()}`;
    const recorded = writer.record(chat, connection());
    recorded.write('data: one\n\n');
    await tick(50);
    const resumed = await resumer.resume(chat);
    if (!resumed) throw new Error('nothing to resume');
    const following = resumed.getReader();
    expect((await following.read()).value).toBe('data: one\n\n');
    down = true;
    const started = Date.now();
    await expect(following.read()).rejects.toMatchObject({
      name: 'AnswerWriterGoneError',
      reason: 'unreachable',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    recorded.end();
  });
});
