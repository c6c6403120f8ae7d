/**
 * QUARANTINE: the one place Docent decodes a provider's stream itself instead of its package.
 *
 * Why: `npm run bench:overhead` measures the package path (`@ai-sdk/openai-compatible`'s request and
 * its four web-stream stages of decoding: bytes → text → events → JSON checked by zod → parts) at about
 * 5 ms of CPU per 20-token answer at 32 clients against 1.4 ms for merely receiving the bytes; at 32
 * answers streaming at once on two cores that pushed the added time to first token from about 3 ms to
 * 29 ms. Issue 15 keeps a decoder of Docent's only above 1 ms; this is it, for the one wire most
 * self-hosted models speak: OpenAI-compatible chat completions (Ollama, vLLM, LM Studio, llama.cpp).
 *
 * What it mirrors: `@ai-sdk/openai-compatible` `MIRRORED_VERSION`'s chat stream, for the parts an
 * answer is read from (text, finish reason, usage, errors). The package still builds and sends the
 * request and reads every failed response; only a successful event stream is handed over (a request
 * header marks the call; `fetch` keeps the body and gives the package one that never ends). Used only for
 * answers without tools. fast-chat-stream.test.ts holds it to the package's output for the same bytes
 * and fails when the installed package is another version.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { AnswerStreamPart, FinishReason } from '../answer-stream.ts';
import { modelAnswerParts, tokenCount } from './model-stream.ts';
import { ProviderStreamCutError } from './provider-errors.ts';

export const MIRRORED_PACKAGE = '@ai-sdk/openai-compatible';
export const MIRRORED_VERSION = '2.0.92';

/**
 * Longest event (its data lines together) a provider may send: a chunk of an answer is a few hundred
 * bytes, and an event that never ends must not grow without bound.
 */
export const MAX_EVENT_BYTES = 1_048_576;

/** Marks a call whose successful stream Docent reads itself; never sent to the provider. */
const HAND_OVER_HEADER = 'x-docent-hand-over';

export interface ChatStreamHandOver {
  /** The `fetch` to give the package: it keeps marked calls' successful streams. */
  fetch: typeof globalThis.fetch;
  /** Runs `model.doStream` and reads the answer with Docent's decoder when the stream was handed over. */
  answer(
    model: LanguageModelV3,
    options: LanguageModelV3CallOptions,
  ): Promise<AsyncIterable<AnswerStreamPart>>;
}

/** Models whose answers go through a hand-over (create-model-provider.ts registers them). */
const handOvers = new WeakMap<LanguageModelV3, ChatStreamHandOver>();

export function useHandOver(model: LanguageModelV3, handOver: ChatStreamHandOver): LanguageModelV3 {
  handOvers.set(model, handOver);
  return model;
}

/** A model's answer to one call (no tools) as answer parts: Docent's decoder where it applies. */
export async function readModelAnswer(
  model: LanguageModelV3,
  options: LanguageModelV3CallOptions,
): Promise<AsyncIterable<AnswerStreamPart>> {
  const handOver = handOvers.get(model);
  if (handOver !== undefined) return handOver.answer(model, options);
  return modelAnswerParts((await model.doStream(options)).stream);
}

export function chatStreamHandOver(inner: typeof globalThis.fetch): ChatStreamHandOver {
  const taken = new Map<string, ReadableStream<Uint8Array>>();
  let calls = 0;
  return {
    async fetch(input, init) {
      const headers = init?.headers as Record<string, string> | undefined;
      const id = headers?.[HAND_OVER_HEADER];
      if (id === undefined) return inner(input, init);
      const { [HAND_OVER_HEADER]: _, ...sent } = headers ?? {};
      const response = await inner(input, { ...init, headers: sent });
      const eventStream = response.headers.get('content-type')?.startsWith('text/event-stream');
      if (!response.ok || response.body === null || !eventStream) return response;
      taken.set(id, response.body);
      // The package gets a body that never ends and is never read: its stages build, wait and are
      // collected with it. An empty body would end them, and each end creates errors (costly stacks).
      return new Response(new ReadableStream(), { status: response.status, headers: response.headers });
    },
    async answer(model, options) {
      const id = String(calls++);
      try {
        const result = await model.doStream({
          ...options,
          headers: { ...options.headers, [HAND_OVER_HEADER]: id },
        });
        const body = taken.get(id);
        if (body === undefined) return modelAnswerParts(result.stream);
        // The package's own stream (over the body it was given) is left unread, to be collected.
        return decodeChatStream(body);
      } catch (error) {
        void taken.get(id)?.cancel();
        throw error;
      } finally {
        taken.delete(id);
      }
    },
  };
}

interface ChatChunk {
  error?: unknown;
  choices?: {
    delta?: { content?: unknown; refusal?: unknown } | null;
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number | null; completion_tokens?: number | null } | null;
}

/** An OpenAI-compatible chat completions event stream as answer parts (see the module comment). */
export async function* decodeChatStream(body: ReadableStream<Uint8Array>): AsyncGenerator<AnswerStreamPart> {
  const events: EventSourceMessage[] = [];
  let overflow: Error | undefined;
  const parser = createParser({
    onEvent: (event) => events.push(event),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') overflow = error;
    },
    maxBufferSize: MAX_EVENT_BYTES,
  });
  const decoder = new TextDecoder();
  let raw: string | undefined;
  let refused = false;
  let usage: ChatChunk['usage'];
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      parser.feed(decoder.decode(value, { stream: !done }));
      if (done) parser.reset({ consume: true });
      if (overflow !== undefined) {
        yield { type: 'error', error: overflow };
        return;
      }
      for (const event of events.splice(0)) {
        if (event.data === '[DONE]') continue;
        const chunk = parseChunk(event.data);
        if (chunk === undefined) {
          yield {
            type: 'error',
            error: new Error(`Invalid chunk in the provider's stream: ${event.data.slice(0, 200)}`),
          };
          return;
        }
        if ('error' in chunk) {
          yield { type: 'error', error: chunk.error };
          return;
        }
        if (chunk.usage != null) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (choice?.finish_reason != null) raw = choice.finish_reason;
        const delta = choice?.delta;
        if (delta == null) continue;
        for (const text of contentTexts(delta.content)) yield { type: 'text-delta', textDelta: text };
        if (typeof delta.refusal === 'string' && delta.refusal.length > 0) {
          refused = true;
          yield { type: 'text-delta', textDelta: delta.refusal };
        }
      }
      if (done) break;
    }
  } finally {
    // Also when the reader stops early (the client went away): the connection closes.
    await reader.cancel().catch(() => {});
  }
  if (raw === undefined) {
    yield { type: 'error', error: new ProviderStreamCutError() };
    return;
  }
  yield {
    type: 'finish',
    finishReason: finishReasonOf(raw, refused),
    usage: {
      promptTokens: tokenCount(usage?.prompt_tokens),
      completionTokens: tokenCount(usage?.completion_tokens),
    },
  };
}

/** The chunk, or undefined where the package's schema would reject it (the fields read here only). */
function parseChunk(data: string): ChatChunk | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const chunk = value as ChatChunk;
  if ('error' in chunk) return chunk;
  if (!Array.isArray(chunk.choices)) return undefined;
  for (const choice of chunk.choices) {
    if (typeof choice !== 'object' || choice === null) return undefined;
    const reason = choice.finish_reason;
    if (reason != null && typeof reason !== 'string') return undefined;
    const content = choice.delta?.content;
    if (content != null && typeof content !== 'string' && !Array.isArray(content)) return undefined;
  }
  const usage = chunk.usage;
  if (
    usage != null &&
    (typeof usage !== 'object' || !isCount(usage.prompt_tokens) || !isCount(usage.completion_tokens))
  )
    return undefined;
  return chunk;
}

function isCount(value: unknown): boolean {
  return value == null || typeof value === 'number';
}

/** The text of a delta's content: a string, or text parts (reasoning parts are not the answer). */
function contentTexts(content: unknown): string[] {
  if (typeof content === 'string') return content.length > 0 ? [content] : [];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const part of content as { type?: unknown; text?: unknown }[])
    if (part?.type === 'text' && typeof part.text === 'string' && part.text.length > 0) texts.push(part.text);
  return texts;
}

function finishReasonOf(raw: string, refused: boolean): FinishReason {
  switch (raw) {
    case 'stop':
      return refused ? 'content-filter' : 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'function_call':
    case 'tool_calls':
      return 'tool-calls';
    default:
      return 'other';
  }
}
