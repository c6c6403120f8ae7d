import {
  InvalidResponseDataError,
  type LanguageModelV1FinishReason,
  type LanguageModelV1LogProbs,
  type LanguageModelV1ProviderMetadata,
} from '@ai-sdk/provider';
import {
  type EmitPart,
  invalidChunk,
  isNullish,
  isObject,
  isParsableJson,
  type Json,
  nullishNumber,
  nullishNumbers,
  nullishString,
  type PartDecoder,
  parseEvent,
} from './stream-decoding.ts';

/**
 * OpenAI chat completions chunks (`stream: true`) to stream parts, as `@ai-sdk/openai` 1.3.24
 * (`flavor: 'openai'`) and `@ai-sdk/openai-compatible` 0.2.16 (`'openai-compatible'`) decode them: the
 * same chunk schema checks, the same parts in the same order, the same finish. The flavors differ where
 * the packages do: reasoning deltas and the shape of in-stream errors (compatible), log probabilities and
 * a `choices[].index` that must be there (OpenAI). Legacy `function_call` deltas are accepted but not
 * decoded: Docent never enables legacy function calling.
 */
export function openAIChatStreamDecoder(options: {
  flavor: 'openai' | 'openai-compatible';
  /** Key of the finish part's provider metadata: the package's provider name before its first dot. */
  metadataKey: string;
}): PartDecoder {
  const compatible = options.flavor === 'openai-compatible';
  const toolCalls = new Map<unknown, ToolCallState>();
  let finishReason: LanguageModelV1FinishReason = 'unknown';
  let promptTokens: number | undefined;
  let completionTokens: number | undefined;
  const metadata: Record<string, number> = {};
  let logprobs: LanguageModelV1LogProbs | undefined;
  let first = true;

  const event = (data: string, emit: EmitPart): void => {
    if (data === '[DONE]') return;
    const parsed = parseEvent(data);
    if (!parsed.ok) {
      finishReason = 'error';
      emit(parsed.part);
      return;
    }
    const value = parsed.value;
    const problem = chunkProblem(value, compatible);
    if (problem !== undefined) {
      finishReason = 'error';
      if (isErrorChunk(value)) {
        const error = value.error as Json;
        emit({ type: 'error', error: compatible ? error.message : errorObject(error) });
      } else emit(invalidChunk(value, problem));
      return;
    }
    const chunk = value as Json;
    if (first) {
      first = false;
      emit({
        type: 'response-metadata',
        id: (chunk.id as string | null | undefined) ?? undefined,
        modelId: (chunk.model as string | null | undefined) ?? undefined,
        timestamp: isNullish(chunk.created) ? undefined : new Date((chunk.created as number) * 1000),
      });
    }
    const usage = chunk.usage as Json | null | undefined;
    if (!isNullish(usage)) {
      // The OpenAI package replaces both counts per usage chunk; the compatible one overwrites them too.
      promptTokens = (usage.prompt_tokens as number | null | undefined) ?? undefined;
      completionTokens = (usage.completion_tokens as number | null | undefined) ?? undefined;
      const completion = usage.completion_tokens_details as Json | null | undefined;
      const prompt = usage.prompt_tokens_details as Json | null | undefined;
      if (!isNullish(completion?.reasoning_tokens))
        metadata.reasoningTokens = completion.reasoning_tokens as number;
      if (!isNullish(completion?.accepted_prediction_tokens))
        metadata.acceptedPredictionTokens = completion.accepted_prediction_tokens as number;
      if (!isNullish(completion?.rejected_prediction_tokens))
        metadata.rejectedPredictionTokens = completion.rejected_prediction_tokens as number;
      if (!isNullish(prompt?.cached_tokens)) metadata.cachedPromptTokens = prompt.cached_tokens as number;
    }
    const choice = (chunk.choices as Json[])[0];
    if (!isNullish(choice?.finish_reason)) finishReason = mapFinishReason(choice.finish_reason as string);
    const delta = choice?.delta as Json | null | undefined;
    if (isNullish(delta)) return;
    if (compatible && !isNullish(delta.reasoning_content))
      emit({ type: 'reasoning', textDelta: delta.reasoning_content as string });
    if (!isNullish(delta.content)) emit({ type: 'text-delta', textDelta: delta.content as string });
    if (!compatible) {
      const mapped = mapLogprobs(choice?.logprobs as Json | null | undefined);
      if (mapped?.length) {
        logprobs ??= [];
        logprobs.push(...mapped);
      }
    }
    const calls = delta.tool_calls as Json[] | null | undefined;
    if (!isNullish(calls)) for (const call of calls) toolCallDelta(call, emit);
  };

  const toolCallDelta = (delta: Json, emit: EmitPart): void => {
    const fn = delta.function as Json;
    const known = toolCalls.get(delta.index);
    if (known === undefined) {
      if (delta.type !== 'function')
        throw new InvalidResponseDataError({ data: delta, message: `Expected 'function' type.` });
      if (isNullish(delta.id))
        throw new InvalidResponseDataError({ data: delta, message: `Expected 'id' to be a string.` });
      if (isNullish(fn.name))
        throw new InvalidResponseDataError({
          data: delta,
          message: `Expected 'function.name' to be a string.`,
        });
      const call: ToolCallState = {
        id: delta.id as string,
        name: fn.name as string,
        args: (fn.arguments as string | null | undefined) ?? '',
        finished: false,
      };
      toolCalls.set(delta.index, call);
      if (call.args.length > 0) emit(toolCallDeltaPart(call, call.args));
      finishIfComplete(call, emit);
      return;
    }
    if (known.finished) return;
    if (!isNullish(fn.arguments)) known.args += fn.arguments as string;
    emit(toolCallDeltaPart(known, (fn.arguments as string | null | undefined) ?? ''));
    finishIfComplete(known, emit);
  };

  return {
    event,
    end(emit) {
      const usage = {
        promptTokens: promptTokens ?? Number.NaN,
        completionTokens: completionTokens ?? Number.NaN,
      };
      const providerMetadata: LanguageModelV1ProviderMetadata = { [options.metadataKey]: { ...metadata } };
      if (compatible) emit({ type: 'finish', finishReason, usage, providerMetadata });
      else emit({ type: 'finish', finishReason, logprobs, usage, providerMetadata });
    },
  };
}

interface ToolCallState {
  id: string;
  name: string;
  args: string;
  finished: boolean;
}

function toolCallDeltaPart(call: ToolCallState, argsTextDelta: string) {
  return {
    type: 'tool-call-delta',
    toolCallType: 'function',
    toolCallId: call.id,
    toolName: call.name,
    argsTextDelta,
  } as const;
}

/** A call is emitted whole as soon as its arguments so far are JSON, as the packages do. */
function finishIfComplete(call: ToolCallState, emit: EmitPart): void {
  if (!isParsableJson(call.args)) return;
  emit({
    type: 'tool-call',
    toolCallType: 'function',
    toolCallId: call.id,
    toolName: call.name,
    args: call.args,
  });
  call.finished = true;
}

function mapFinishReason(reason: string): LanguageModelV1FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'function_call':
    case 'tool_calls':
      return 'tool-calls';
    default:
      return 'unknown';
  }
}

function mapLogprobs(logprobs: Json | null | undefined): LanguageModelV1LogProbs | undefined {
  const content = logprobs?.content as Json[] | null | undefined;
  return content?.map((entry) => ({
    token: entry.token as string,
    logprob: entry.logprob as number,
    topLogprobs: ((entry.top_logprobs as Json[] | undefined) ?? []).map((top) => ({
      token: top.token as string,
      logprob: top.logprob as number,
    })),
  }));
}

/** The error object as the package's schema leaves it: only the fields it declares. */
function errorObject(error: Json): Json {
  const out: Json = { message: error.message };
  for (const field of ['type', 'param', 'code'] as const) if (field in error) out[field] = error[field];
  return out;
}

/** `{ error: { message, type?, param?, code? } }`, the in-stream error both packages accept. */
function isErrorChunk(value: unknown): value is { error: Json } {
  if (!isObject(value) || !isObject(value.error)) return false;
  const error = value.error;
  const code = error.code;
  return (
    typeof error.message === 'string' &&
    nullishString(error.type) &&
    (isNullish(code) || typeof code === 'string' || typeof code === 'number')
  );
}

/** Why `value` is not a chunk the package's schema accepts; undefined when it is one. */
function chunkProblem(value: unknown, compatible: boolean): string | undefined {
  if (!isObject(value)) return 'not an object';
  if (!nullishString(value.id) || !nullishNumber(value.created) || !nullishString(value.model))
    return 'id, created or model';
  if (!Array.isArray(value.choices)) return 'choices';
  for (const choice of value.choices) {
    const problem = choiceProblem(choice, compatible);
    if (problem !== undefined) return problem;
  }
  const usage = value.usage;
  if (isNullish(usage)) return undefined;
  if (!isObject(usage) || !nullishNumber(usage.prompt_tokens) || !nullishNumber(usage.completion_tokens))
    return 'usage';
  if (!nullishNumbers(usage.prompt_tokens_details, ['cached_tokens'])) return 'usage.prompt_tokens_details';
  if (
    !nullishNumbers(usage.completion_tokens_details, [
      'reasoning_tokens',
      'accepted_prediction_tokens',
      'rejected_prediction_tokens',
    ])
  )
    return 'usage.completion_tokens_details';
  return undefined;
}

function choiceProblem(choice: unknown, compatible: boolean): string | undefined {
  if (!isObject(choice)) return 'choice';
  if (!nullishString(choice.finish_reason)) return 'finish_reason';
  if (!compatible) {
    if (typeof choice.index !== 'number') return 'choice.index';
    if (!logprobsValid(choice.logprobs)) return 'logprobs';
  }
  const delta = choice.delta;
  if (isNullish(delta)) return undefined;
  if (!isObject(delta)) return 'delta';
  if (!isNullish(delta.role) && delta.role !== 'assistant') return 'delta.role';
  if (!nullishString(delta.content)) return 'delta.content';
  if (compatible && !nullishString(delta.reasoning_content)) return 'delta.reasoning_content';
  if (!compatible && !isNullish(delta.function_call)) {
    const call = delta.function_call;
    if (!isObject(call)) return 'delta.function_call';
    if (
      (call.name !== undefined && typeof call.name !== 'string') ||
      (call.arguments !== undefined && typeof call.arguments !== 'string')
    )
      return 'delta.function_call';
  }
  const calls = delta.tool_calls;
  if (isNullish(calls)) return undefined;
  if (!Array.isArray(calls)) return 'delta.tool_calls';
  for (const call of calls) {
    if (!isObject(call)) return 'tool call';
    // The compatible schema lets the index be absent; neither lets it be null.
    if (
      compatible ? call.index !== undefined && typeof call.index !== 'number' : typeof call.index !== 'number'
    )
      return 'tool call index';
    if (!nullishString(call.id) || !(isNullish(call.type) || call.type === 'function'))
      return 'tool call id or type';
    const fn = call.function;
    if (!isObject(fn) || !nullishString(fn.name) || !nullishString(fn.arguments)) return 'tool call function';
  }
  return undefined;
}

function logprobsValid(logprobs: unknown): boolean {
  if (isNullish(logprobs)) return true;
  if (!isObject(logprobs)) return false;
  const content = logprobs.content;
  if (content === null) return true;
  if (!Array.isArray(content)) return false;
  for (const entry of content) {
    if (!isObject(entry) || typeof entry.token !== 'string' || typeof entry.logprob !== 'number')
      return false;
    if (!Array.isArray(entry.top_logprobs)) return false;
    for (const top of entry.top_logprobs)
      if (!isObject(top) || typeof top.token !== 'string' || typeof top.logprob !== 'number') return false;
  }
  return true;
}
