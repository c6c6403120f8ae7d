import net from 'node:net';
import { setImmediate as oneImmediate } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { yieldToIo } from './yield-to-io.ts';

/** Holds the thread as a long search does, without yielding. */
const busy = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/**
 * A socket pair: the test's code runs in the first message's I/O callback (the poll phase), holds the
 * thread while a second message arrives, yields with `pause`, and tells whether the second message was
 * read before the work went on.
 */
async function secondMessageReadDuringPause(pause: () => Promise<unknown>): Promise<boolean> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const client = net.connect(port, '127.0.0.1');
  closers.push(() => {
    client.destroy();
    server.close();
  });
  const accepted = await new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  closers.push(() => accepted.destroy());
  return new Promise((resolve) => {
    let messages = 0;
    accepted.on('data', async () => {
      messages++;
      if (messages > 1) return;
      client.write('second');
      busy(30);
      await pause();
      resolve(messages > 1);
    });
    client.write('first');
  });
}

describe('yieldToIo', () => {
  it('lets I/O that arrived during a long task in before the task goes on', async () => {
    expect(await secondMessageReadDuringPause(yieldToIo)).toBe(true);
  });

  it('is needed: one setImmediate from an I/O callback resumes before the waiting I/O is read', async () => {
    // What makes the helper necessary; should Node change this, the helper may become one immediate.
    expect(await secondMessageReadDuringPause(() => oneImmediate())).toBe(false);
  });
});
