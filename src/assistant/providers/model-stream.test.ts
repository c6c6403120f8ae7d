import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { TextStreamPart, ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import type { AnswerStreamPart } from '../answer-stream.ts';
import { modelAnswerParts, stepAnswerParts, tokenCount } from './model-stream.ts';

async function collect(parts: AsyncIterable<AnswerStreamPart>): Promise<AnswerStreamPart[]> {
  const out: AnswerStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe('model answer parts', () => {
  it('keeps only whole token counts from 0 up: a server reporting -5, 2.5 or none gets 0', async () => {
    expect([tokenCount(7), tokenCount(-5), tokenCount(2.5), tokenCount(1e20), tokenCount(undefined)]).toEqual(
      [7, 0, 0, 0, 0],
    );
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start: (controller) => {
        controller.enqueue({
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: -5, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 2.5, text: undefined, reasoning: undefined },
          },
        });
        controller.close();
      },
    });
    expect(await collect(modelAnswerParts(stream))).toEqual([
      { type: 'finish', finishReason: 'stop', usage: { promptTokens: 0, completionTokens: 0 } },
    ]);
  });

  it('fails an answer the provider finished with reason error, on both paths', async () => {
    // What @ai-sdk/openai's Responses model emits for `response.failed` with `error: null`: no error part.
    const usage = {
      inputTokens: { total: 5, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: undefined, reasoning: undefined },
    };
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start: (controller) => {
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'Monthly' });
        controller.enqueue({ type: 'finish', finishReason: { unified: 'error', raw: 'error' }, usage });
        controller.close();
      },
    });
    async function* steps(): AsyncGenerator<TextStreamPart<ToolSet>> {
      yield { type: 'finish', finishReason: 'error', rawFinishReason: 'error', totalUsage: {} } as never;
    }
    for (const parts of [await collect(modelAnswerParts(stream)), await collect(stepAnswerParts(steps()))])
      expect(parts.at(-1)).toMatchObject({ type: 'error', error: expect.any(Error) });
  });

  it('gives a search the tool refused (arguments that are no search) an empty result', async () => {
    async function* parts(): AsyncGenerator<TextStreamPart<ToolSet>> {
      yield {
        type: 'tool-call',
        toolCallId: 'c1',
        toolName: 'search',
        input: 'not json',
        dynamic: true,
      } as never;
      yield {
        type: 'tool-error',
        toolCallId: 'c1',
        toolName: 'search',
        input: 'not json',
        error: new Error('x'),
      } as never;
    }
    const out = await collect(stepAnswerParts(parts()));
    expect(out.slice(0, 2)).toEqual([
      { type: 'tool-call', toolCallId: 'c1', toolName: 'search', args: 'not json' },
      { type: 'tool-result', toolCallId: 'c1', toolName: 'search', result: null },
    ]);
  });
});
