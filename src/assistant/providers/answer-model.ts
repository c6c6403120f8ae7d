import type { LanguageModelV1StreamPart } from '@ai-sdk/provider';
import { type LanguageModelV1, wrapLanguageModel } from 'ai';
import { ProviderStreamCutError } from './provider-errors.ts';

/**
 * A provider's model as the assistant uses it: the server-built system prompt goes first (any system
 * message already in the prompt is dropped: the route never forwards client-sent ones, and this keeps it
 * so). The checks on its answers are `answerChecks`, applied where the stream is decoded
 * (direct-stream-model.ts), so they add no stream stage.
 */
export function answerModel(model: LanguageModelV1, system: string): LanguageModelV1 {
  return wrapLanguageModel({
    model,
    middleware: {
      transformParams: async ({ params }) => ({
        ...params,
        prompt: [{ role: 'system', content: system }, ...params.prompt.filter((m) => m.role !== 'system')],
      }),
    },
  });
}

/** Applied to each part of one answer stream, in order, then `end` once when the stream ends. */
export interface AnswerChecks {
  part(part: LanguageModelV1StreamPart): LanguageModelV1StreamPart;
  /** A part to add at the end of the stream, if any. */
  end(): LanguageModelV1StreamPart | undefined;
}

/**
 * What the assistant requires of a provider's answer stream: token counts a server did not report
 * become 0 instead of NaN, and a stream that ends without a finish reason (a proxy or server that
 * closed the response cleanly mid-answer: a finish part saying `unknown`, or none at all) ends with an
 * error instead, so a cut answer is never stored or shown as complete.
 */
export function answerChecks(): AnswerChecks {
  let ended = false;
  return {
    part(part) {
      if (part.type === 'error') ended = true;
      if (part.type !== 'finish') return part;
      ended = true;
      if (part.finishReason === 'unknown') return { type: 'error', error: new ProviderStreamCutError() };
      return {
        ...part,
        usage: {
          promptTokens: finiteOrZero(part.usage.promptTokens),
          completionTokens: finiteOrZero(part.usage.completionTokens),
        },
      };
    },
    end() {
      return ended ? undefined : { type: 'error', error: new ProviderStreamCutError() };
    },
  };
}

/** `answerChecks` as a stream stage, for a stream Docent did not decode itself. */
export function checkedAnswerStream(): TransformStream<LanguageModelV1StreamPart, LanguageModelV1StreamPart> {
  const checks = answerChecks();
  return new TransformStream({
    transform(part, controller) {
      controller.enqueue(checks.part(part));
    },
    flush(controller) {
      const last = checks.end();
      if (last !== undefined) controller.enqueue(last);
    },
  });
}

function finiteOrZero(value: number): number {
  return Number.isFinite(value) ? value : 0;
}
