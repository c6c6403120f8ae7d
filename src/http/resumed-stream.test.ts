import { describe, expect, it } from 'vitest';
import { AnswerWriterGoneError } from '../streams/resumable-streams.ts';
import { relayResumed } from './resumed-stream.ts';

/** A chunk, then `error`. */
const failing = (error: Error) => {
  let pulls = 0;
  return new ReadableStream<string>({
    pull: (controller) => {
      if (pulls++ === 0) controller.enqueue('data: {"type":"text-delta"}\n\n');
      else controller.error(error);
    },
  });
};

describe('relayResumed', () => {
  it('ends a resumed answer whose writer died, or whose Redis went away, with an error chunk and [DONE]', async () => {
    for (const [reason, said] of [
      ['stopped', 'The answer was interrupted (its server stopped). Ask again to get it.'],
      [
        'unreachable',
        'The answer can no longer be followed (its server cannot be reached). Ask again to get it.',
      ],
    ] as const) {
      let out = '';
      await relayResumed(
        failing(new AnswerWriterGoneError(reason)),
        {
          write: (t) => {
            out += t;
          },
        },
        new AbortController().signal,
      );
      expect(out).toBe(
        'data: {"type":"text-delta"}\n\n' +
          `data: {"type":"error","errorText":"${said}"}\n\n` +
          'data: [DONE]\n\n',
      );
    }
  });

  it('lets any other failure through', async () => {
    await expect(
      relayResumed(failing(new Error('boom')), { write: () => {} }, new AbortController().signal),
    ).rejects.toThrow('boom');
  });

  it('lets the stream go at once when the reader left while the resume was looked up', async () => {
    let cancelled = false;
    const stream = new ReadableStream<string>({
      cancel: () => {
        cancelled = true;
      },
    });
    const gone = new AbortController();
    gone.abort();
    let out = '';
    await relayResumed(
      stream,
      {
        write: (t) => {
          out += t;
        },
      },
      gone.signal,
    );
    expect(cancelled).toBe(true);
    expect(out).toBe('');
  });
});
