import type { LanguageModelV1StreamPart } from '@ai-sdk/provider';
import { type LanguageModelV1, wrapLanguageModel } from 'ai';
import { ProviderStreamCutError } from './provider-errors.ts';

/**
 * A provider's model as the assistant uses it: the server-built system prompt goes first (any system
 * message already in the prompt is dropped: the route never forwards client-sent ones, and this keeps it
 * so), token counts a server did not report become 0 instead of NaN, and a stream that ends without a
 * finish reason (a proxy or server that closed the response cleanly mid-answer) becomes an error, so a cut
 * answer is never stored or shown as complete.
 */
export function answerModel(model: LanguageModelV1, system: string): LanguageModelV1 {
  return wrapLanguageModel({
    model,
    middleware: {
      transformParams: async ({ params }) => ({
        ...params,
        prompt: [{ role: 'system', content: system }, ...params.prompt.filter((m) => m.role !== 'system')],
      }),
      wrapStream: async ({ doStream }) => {
        const result = await doStream();
        return { ...result, stream: result.stream.pipeThrough(checkedFinish()) };
      },
    },
  });
}

function checkedFinish(): TransformStream<LanguageModelV1StreamPart, LanguageModelV1StreamPart> {
  return new TransformStream({
    transform(part, controller) {
      if (part.type !== 'finish') {
        controller.enqueue(part);
        return;
      }
      if (part.finishReason === 'unknown') {
        controller.enqueue({ type: 'error', error: new ProviderStreamCutError() });
        return;
      }
      controller.enqueue({
        ...part,
        usage: {
          promptTokens: finiteOrZero(part.usage.promptTokens),
          completionTokens: finiteOrZero(part.usage.completionTokens),
        },
      });
    },
  });
}

function finiteOrZero(value: number): number {
  return Number.isFinite(value) ? value : 0;
}
