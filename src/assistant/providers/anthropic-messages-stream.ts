import type { LanguageModelV1FinishReason, LanguageModelV1ProviderMetadata } from '@ai-sdk/provider';
import {
  type EmitPart,
  invalidChunk,
  isObject,
  type Json,
  nullishNumber,
  nullishString,
  type PartDecoder,
  parseEvent,
} from './stream-decoding.ts';

/**
 * Anthropic messages stream events to stream parts, as `@ai-sdk/anthropic` 1.2.12 decodes them: the same
 * event schema checks (an event type it does not know is an error part, as there), the same parts, and
 * the finish at `message_stop`. A stream that ends before `message_stop` has no finish part, as with the
 * package; the answer checks (answer-checks.ts) call that cut off.
 */
export function anthropicMessagesStreamDecoder(): PartDecoder {
  let finishReason: LanguageModelV1FinishReason = 'unknown';
  const usage = { promptTokens: Number.NaN, completionTokens: Number.NaN };
  const toolCalls = new Map<number, { toolCallId: string; toolName: string; jsonText: string }>();
  let providerMetadata: LanguageModelV1ProviderMetadata | undefined;
  let blockType: string | undefined;

  const event = (data: string, emit: EmitPart): void => {
    const parsed = parseEvent(data);
    if (!parsed.ok) {
      emit(parsed.part);
      return;
    }
    const value = parsed.value;
    const problem = eventProblem(value);
    if (problem !== undefined) {
      emit(invalidChunk(value, problem));
      return;
    }
    const chunk = value as Json;
    switch (chunk.type) {
      case 'content_block_start': {
        const block = chunk.content_block as Json;
        blockType = block.type as string;
        if (block.type === 'redacted_thinking')
          emit({ type: 'redacted-reasoning', data: block.data as string });
        else if (block.type === 'tool_use')
          toolCalls.set(chunk.index as number, {
            toolCallId: block.id as string,
            toolName: block.name as string,
            jsonText: '',
          });
        return;
      }
      case 'content_block_stop': {
        const call = toolCalls.get(chunk.index as number);
        if (call !== undefined) {
          emit({
            type: 'tool-call',
            toolCallType: 'function',
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            args: call.jsonText,
          });
          toolCalls.delete(chunk.index as number);
        }
        blockType = undefined;
        return;
      }
      case 'content_block_delta': {
        const delta = chunk.delta as Json;
        switch (delta.type) {
          case 'text_delta':
            emit({ type: 'text-delta', textDelta: delta.text as string });
            return;
          case 'thinking_delta':
            emit({ type: 'reasoning', textDelta: delta.thinking as string });
            return;
          case 'signature_delta':
            if (blockType === 'thinking')
              emit({ type: 'reasoning-signature', signature: delta.signature as string });
            return;
          default: {
            // input_json_delta. The package fails the stream for a block it never saw start; so does this.
            const call = toolCalls.get(chunk.index as number);
            if (call === undefined)
              throw new TypeError(`input_json_delta for unknown content block ${chunk.index}`);
            emit({
              type: 'tool-call-delta',
              toolCallType: 'function',
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              argsTextDelta: delta.partial_json as string,
            });
            call.jsonText += delta.partial_json as string;
            return;
          }
        }
      }
      case 'message_start': {
        const message = chunk.message as Json;
        const counts = message.usage as Json;
        usage.promptTokens = counts.input_tokens as number;
        usage.completionTokens = counts.output_tokens as number;
        providerMetadata = {
          anthropic: {
            cacheCreationInputTokens:
              (counts.cache_creation_input_tokens as number | null | undefined) ?? null,
            cacheReadInputTokens: (counts.cache_read_input_tokens as number | null | undefined) ?? null,
          },
        };
        emit({
          type: 'response-metadata',
          id: (message.id as string | null | undefined) ?? undefined,
          modelId: (message.model as string | null | undefined) ?? undefined,
        });
        return;
      }
      case 'message_delta':
        usage.completionTokens = (chunk.usage as Json).output_tokens as number;
        finishReason = mapStopReason((chunk.delta as Json).stop_reason as string | null | undefined);
        return;
      case 'message_stop':
        emit({ type: 'finish', finishReason, usage: { ...usage }, providerMetadata });
        return;
      case 'error':
        emit({
          type: 'error',
          error: { type: (chunk.error as Json).type, message: (chunk.error as Json).message },
        });
        return;
      default:
        // ping
        return;
    }
  };

  return { event, end() {} };
}

function mapStopReason(reason: string | null | undefined): LanguageModelV1FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
      return 'length';
    default:
      return 'unknown';
  }
}

/** Why `value` is not an event the package's schema accepts; undefined when it is one. */
function eventProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not an object';
  switch (value.type) {
    case 'message_start': {
      const message = value.message;
      if (!isObject(message) || !nullishString(message.id) || !nullishString(message.model)) return 'message';
      const usage = message.usage;
      if (
        !isObject(usage) ||
        typeof usage.input_tokens !== 'number' ||
        typeof usage.output_tokens !== 'number'
      )
        return 'message.usage';
      if (!nullishNumber(usage.cache_creation_input_tokens) || !nullishNumber(usage.cache_read_input_tokens))
        return 'message.usage cache counts';
      return undefined;
    }
    case 'content_block_start': {
      if (typeof value.index !== 'number') return 'index';
      const block = value.content_block;
      if (!isObject(block)) return 'content_block';
      switch (block.type) {
        case 'text':
          return typeof block.text === 'string' ? undefined : 'content_block.text';
        case 'thinking':
          return typeof block.thinking === 'string' ? undefined : 'content_block.thinking';
        case 'tool_use':
          return typeof block.id === 'string' && typeof block.name === 'string'
            ? undefined
            : 'content_block tool';
        case 'redacted_thinking':
          return typeof block.data === 'string' ? undefined : 'content_block.data';
        default:
          return 'content_block.type';
      }
    }
    case 'content_block_delta': {
      if (typeof value.index !== 'number') return 'index';
      const delta = value.delta;
      if (!isObject(delta)) return 'delta';
      const field = DELTA_FIELDS[delta.type as string];
      if (field === undefined) return 'delta.type';
      return typeof delta[field] === 'string' ? undefined : `delta.${field}`;
    }
    case 'content_block_stop':
      return typeof value.index === 'number' ? undefined : 'index';
    case 'error': {
      const error = value.error;
      return isObject(error) && typeof error.type === 'string' && typeof error.message === 'string'
        ? undefined
        : 'error';
    }
    case 'message_delta': {
      const delta = value.delta;
      const usage = value.usage;
      if (!isObject(delta) || !nullishString(delta.stop_reason)) return 'delta';
      return isObject(usage) && typeof usage.output_tokens === 'number' ? undefined : 'usage';
    }
    case 'message_stop':
    case 'ping':
      return undefined;
    default:
      return 'type';
  }
}

/** The text field each content block delta type must carry. */
const DELTA_FIELDS: Readonly<Record<string, string>> = Object.freeze(
  Object.assign(Object.create(null), {
    input_json_delta: 'partial_json',
    text_delta: 'text',
    thinking_delta: 'thinking',
    signature_delta: 'signature',
  }),
);
