import { describe, expect, it } from 'vitest';
import {
  type AnswerSink,
  type AnswerStreamPart,
  EmptyAnswerError,
  MAX_ANSWER_CHARS,
  streamAnswer,
} from './answer-stream.ts';

function recordingSink(): AnswerSink & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    start: () => events.push('start'),
    searchCall: () => events.push('searchCall'),
    searchResult: () => events.push('searchResult'),
    text: (delta) => events.push(`text:${delta}`),
    stepEnd: () => events.push('stepEnd'),
    stepStart: () => events.push('stepStart'),
    finish: () => events.push('finish'),
    error: (message) => events.push(`error:${message}`),
    flush: () => {},
  };
}

describe('streamAnswer', () => {
  it('ends an answer that finished without a word as failed, never as a blank answer', async () => {
    async function* parts(): AsyncGenerator<AnswerStreamPart> {
      yield { type: 'finish', finishReason: 'tool-calls', usage: { promptTokens: 3, completionTokens: 1 } };
    }
    const sink = recordingSink();
    const outcome = await streamAnswer(parts(), sink, {
      toolCallId: 'call_1',
      query: null,
      results: [],
      sources: () => [],
      errorMessage: (error) => (error instanceof EmptyAnswerError ? 'no answer' : 'other'),
    });
    expect(outcome.error).toBeInstanceOf(EmptyAnswerError);
    expect(sink.events).toEqual(['start', 'error:no answer']);
  });

  it('ends an answer that never stops at MAX_ANSWER_CHARS as a length stop, and stops reading the model', async () => {
    let read = 0;
    let closed = false;
    async function* endless(): AsyncGenerator<AnswerStreamPart> {
      try {
        // An emoji (two UTF-16 units) straddles the limit: it is left out whole.
        yield { type: 'text-delta', textDelta: 'x'.repeat(MAX_ANSWER_CHARS - 1) };
        for (;;) {
          read++;
          yield { type: 'text-delta', textDelta: '🙂 the the the ' };
        }
      } finally {
        closed = true;
      }
    }
    const sink = recordingSink();
    const outcome = await streamAnswer(endless(), sink, {
      toolCallId: 'call_1',
      query: null,
      results: [],
      sources: () => [],
      errorMessage: () => 'failed',
    });
    expect(outcome.finishReason).toBe('length');
    expect(outcome.aborted).toBe(false);
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('x'.repeat(MAX_ANSWER_CHARS - 1));
    expect(read).toBe(1);
    expect(closed).toBe(true);
    expect(sink.events.at(-1)).toBe('finish');
    const sent = sink.events.filter((e) => e.startsWith('text:')).map((e) => e.slice('text:'.length));
    expect(sent.join('')).toBe(outcome.text);
  });
});
