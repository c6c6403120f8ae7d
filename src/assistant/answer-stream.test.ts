import { describe, expect, it } from 'vitest';
import { type AnswerSink, type AnswerStreamPart, EmptyAnswerError, streamAnswer } from './answer-stream.ts';

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
});
