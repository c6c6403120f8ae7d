import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { TextStreamPart, ToolSet } from 'ai';
import type { AnswerStreamPart, FinishReason, TokenUsage } from '../answer-stream.ts';
import { ProviderStreamCutError } from './provider-errors.ts';

/**
 * A model's answer as the assistant reads it (`AnswerStreamPart`), from either source: the model's own
 * stream (one call, no tools) or `streamText`'s full stream (a model that may search first). Both get the
 * checks the assistant requires of an answer: token counts a server did not report become 0, and a
 * stream that ends without a finish reason from the provider (a proxy or server that closed the response
 * cleanly mid-answer) ends with an error instead, so a cut answer is never stored or shown as complete.
 * The provider packages report that case as a finish with reason `other` and no raw reason.
 */
export async function* modelAnswerParts(
  stream: ReadableStream<LanguageModelV3StreamPart>,
): AsyncGenerator<AnswerStreamPart> {
  for await (const part of stream) {
    switch (part.type) {
      case 'text-delta':
        yield { type: 'text-delta', textDelta: part.delta };
        break;
      case 'finish':
        yield end(
          part.finishReason.unified,
          part.finishReason.raw,
          part.usage.inputTokens.total,
          part.usage.outputTokens.total,
        );
        return;
      case 'error':
        yield part;
        return;
    }
  }
  yield { type: 'error', error: new ProviderStreamCutError() };
}

/** `streamText`'s parts (steps, the `search` tool's calls and results) as answer parts. */
export async function* stepAnswerParts<Tools extends ToolSet>(
  stream: AsyncIterable<TextStreamPart<Tools>>,
): AsyncGenerator<AnswerStreamPart> {
  for await (const part of stream) {
    switch (part.type) {
      case 'text-delta':
        yield { type: 'text-delta', textDelta: part.text };
        break;
      case 'tool-call':
        yield { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, args: part.input };
        break;
      case 'tool-result':
        yield {
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          result: part.output,
        };
        break;
      case 'tool-error':
        // A call the tool refused (arguments that are not a search): it gets a result all the same, with
        // nothing found, so no reader is left with a search that never ends.
        yield { type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, result: null };
        break;
      case 'start-step':
        yield { type: 'step-start' };
        break;
      case 'finish-step':
        yield {
          type: 'step-finish',
          finishReason: part.finishReason,
          usage: tokens(part.usage.inputTokens, part.usage.outputTokens),
        };
        break;
      case 'finish':
        yield end(
          part.finishReason,
          part.rawFinishReason,
          part.totalUsage.inputTokens,
          part.totalUsage.outputTokens,
        );
        return;
      case 'error':
        yield part;
        return;
      case 'abort': {
        const error = new Error('The reader went away');
        error.name = 'AbortError';
        yield { type: 'error', error };
        return;
      }
    }
  }
  yield { type: 'error', error: new ProviderStreamCutError() };
}

/**
 * The answer's last part: its finish, or an error when the provider never said why it ended or said it
 * failed. A failure can come as a finish alone: OpenAI's `response.failed` without an error object ends
 * with reason `error` and no error part, and was stored and shown as a complete answer.
 */
function end(
  reason: FinishReason,
  raw: string | undefined,
  prompt: number | undefined,
  completion: number | undefined,
): AnswerStreamPart {
  if (reason === 'other' && raw === undefined) return { type: 'error', error: new ProviderStreamCutError() };
  if (reason === 'error')
    return { type: 'error', error: new Error(`The model provider ended the answer as failed (${raw})`) };
  return { type: 'finish', finishReason: reason, usage: tokens(prompt, completion) };
}

function tokens(prompt: number | undefined, completion: number | undefined): TokenUsage {
  return { promptTokens: tokenCount(prompt), completionTokens: tokenCount(completion) };
}

/**
 * A provider's token count as Docent keeps it: a whole number from 0 up, else 0 (as for a count the
 * server did not report). A server that reports -5 or 2.5 is wrong, and a negative count broke the
 * metrics' counters and the stored usage.
 */
export function tokenCount(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
