/**
 * The one module that writes the AI SDK v4 data stream of the v1 assistant endpoint (`CODE:JSON\n` lines,
 * read by `@ai-sdk/ui-utils` 1.x `processDataStream`). Every part goes through `ai`'s own
 * `formatDataStreamPart`, so the bytes are exactly what the SDK's server helpers would write.
 *
 * Stream of one answer: `f:` start step · `9:` tool call `search` · `a:` its result · `0:` text deltas ·
 * `h:` the sources the answer cites · `8:` `[{threadId}]` · `e:` finish step · `d:` finish message with
 * `threadId`. `h:` comes after the text because only then is it known which sources were cited (a model
 * answer is not known in advance); the client accepts a source part anywhere in the message.
 */
import type { LanguageModelV1FinishReason } from '@ai-sdk/provider';
import { type DataStreamWriter, formatDataStreamPart } from 'ai';
import { citedSourceIds } from './citations.ts';

export type FinishReason = LanguageModelV1FinishReason;

/** One encoded line, `CODE:JSON\n` (the SDK declares this type but does not export it). */
export type DataStreamString = ReturnType<typeof formatDataStreamPart>;

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/** One page in the `search` tool result, shaped like the hosted service's v1 stream. */
export interface SearchResultItem {
  path: string;
  url: string;
  title: string;
}

/** A source the answer may cite: `id` is the citation number as a string (`'1'` for `[1]`). */
export interface CitableSource {
  id: string;
  url: string;
  title: string;
}

/** Name of the tool call that shows the retrieval step in the stream. */
export const SEARCH_TOOL_NAME = 'search';

/**
 * Default text of a `3:` error part. The v4 SDK masks errors with "An error occurred." by default; the
 * real cause goes to the server log with the request id, never to the client.
 */
export const DEFAULT_STREAM_ERROR_MESSAGE = 'An error occurred.';

/**
 * When v1 was deprecated, for the `Deprecation` header: RFC 9745 (March 2025) defines the value as a
 * structured-field Date (`@` + Unix seconds), superseding the draft's `Deprecation: true`. The date is the
 * release of AI SDK 5 (2025-07-31T00:00:00Z), whose clients the v2 endpoint serves instead.
 */
export const V1_DEPRECATED_AT = new Date('2025-07-31T00:00:00Z');

/** Headers of every v1 stream response except those that depend on the request (`Link`, thread ids). */
export const ASSISTANT_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/plain; charset=utf-8',
  // The v4 client does not check it, but the SDK's own helpers send it and proxies/tools key on it.
  'X-Vercel-AI-Data-Stream': 'v1',
  'Cache-Control': 'no-cache',
  // Stops nginx-style proxies from buffering the stream, which would delay the first token.
  'X-Accel-Buffering': 'no',
  Deprecation: `@${Math.floor(V1_DEPRECATED_AT.getTime() / 1000)}`,
});

/**
 * Path of the v2 endpoint that succeeds `…/v1/assistant/{domain}/message`, under the same prefix
 * (`''` or `/discovery`). A path-absolute reference is a valid `Link` target (RFC 8288 §3.1: resolved
 * against the request URL), so it stays right behind proxies that rewrite the host.
 */
export function successorPath(domain: string, prefix = ''): string {
  return `${prefix}/v2/assistant/${encodeURIComponent(domain)}/message`;
}

/** All headers of a v1 stream response for `domain`: the constants plus the `Link` to the successor. */
export function assistantStreamHeaders(domain: string, prefix = ''): Record<string, string> {
  return {
    ...ASSISTANT_STREAM_HEADERS,
    Link: `<${successorPath(domain, prefix)}>; rel="successor-version"`,
  };
}

/** `f:` start of the (single) step; `messageId` becomes the assistant message's id in the client. */
export function startStepPart(messageId: string): DataStreamString {
  return formatDataStreamPart('start_step', { messageId });
}

/** `9:` the retrieval shown as a completed call of the `search` tool. */
export function searchToolCallPart(toolCallId: string, query: string): DataStreamString {
  return formatDataStreamPart('tool_call', { toolCallId, toolName: SEARCH_TOOL_NAME, args: { query } });
}

/** `a:` the `search` tool's result: the pages retrieved, in rank order. Must follow its `9:`. */
export function searchToolResultPart(
  toolCallId: string,
  results: readonly SearchResultItem[],
): DataStreamString {
  return formatDataStreamPart('tool_result', {
    toolCallId,
    result: {
      type: 'search',
      results: results.map((r) => ({ path: r.path, url: r.url, metadata: { title: r.title } })),
    },
  });
}

/** `h:` a cited page. */
export function sourcePart(source: CitableSource): DataStreamString {
  return formatDataStreamPart('source', {
    sourceType: 'url',
    id: source.id,
    url: source.url,
    title: source.title,
  });
}

/** `0:` a text delta of the answer. */
export function textPart(text: string): DataStreamString {
  return formatDataStreamPart('text', text);
}

/** `8:` message annotation carrying the thread id (how a `useChat` app reads it: `message.annotations`). */
export function threadAnnotationPart(threadId: string): DataStreamString {
  return formatDataStreamPart('message_annotations', [{ threadId }]);
}

/** `e:` end of the step. Usage holds only the two counts the v4 client reads, like the SDK's helpers. */
export function finishStepPart(finishReason: FinishReason, usage: TokenUsage): DataStreamString {
  return formatDataStreamPart('finish_step', {
    finishReason,
    usage: { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens },
    isContinued: false,
  });
}

/**
 * `d:` end of the message, with the contract's `threadId`. `formatDataStreamPart` only `JSON.stringify`s
 * its value (no validation or stripping at runtime; checked in `@ai-sdk/ui-utils` 1.2.11), but its type has
 * no `threadId`, so the value is built as a wider type first. The client drops the extra key silently.
 */
export function finishMessagePart(
  finishReason: FinishReason,
  usage: TokenUsage,
  threadId: string,
): DataStreamString {
  const value: { finishReason: FinishReason; usage: TokenUsage; threadId: string } = {
    finishReason,
    usage: { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens },
    threadId,
  };
  return formatDataStreamPart('finish_message', value);
}

/** `3:` an error. The v4 client throws on it, so it is always the last part written. */
export function errorPart(message: string = DEFAULT_STREAM_ERROR_MESSAGE): DataStreamString {
  return formatDataStreamPart('error', message);
}

/** The parts of `streamText(...).fullStream` (or a model's own stream) this writer consumes. */
export type AnswerStreamPart =
  | { type: 'text-delta'; textDelta: string }
  | { type: 'finish'; finishReason: FinishReason; usage: TokenUsage }
  | { type: 'error'; error: unknown }
  /** A model's own call of the `search` tool, and what it returned (`streamText` with tools). */
  | { type: 'tool-call'; toolCallId: string; toolName: string; args: unknown }
  | { type: 'tool-result'; toolCallId: string; toolName: string; result: unknown }
  /** Step boundaries of a multi-step answer: a step that ends in tool calls is followed by another. */
  | { type: 'step-start' }
  | { type: 'step-finish'; finishReason: FinishReason; usage: TokenUsage }
  | { type: string };

export interface WriteAnswerOptions {
  messageId: string;
  toolCallId: string;
  /** The search query shown as the tool call's `args.query`. */
  query: string;
  results: readonly SearchResultItem[];
  /** Sources the answer may cite, by citation id; `h:` parts are written for the cited ones only. */
  sources: readonly CitableSource[];
  threadId: string;
  /**
   * Text of the `3:` part when the answer stream fails; a function gets the error, so the text can say
   * what kind of failure it was (it must still be safe to show: the reader sees it).
   */
  errorMessage?: string | ((error: unknown) => string);
  /** The client went away: stop reading the answer and write nothing more. */
  abortSignal?: { readonly aborted: boolean };
  /** The pages of a model's own `search` call, from the tool's result (written as its `a:` part). */
  searchResults?: (result: unknown) => readonly SearchResultItem[];
}

export interface AnswerOutcome {
  /** The answer text written (partial when aborted or failed). */
  text: string;
  finishReason: FinishReason;
  usage: TokenUsage;
  /** Ids of the sources cited in `text` and written as `h:` parts. */
  citedIds: string[];
  aborted: boolean;
  /** The error of a failed answer stream (not sent to the client). */
  error?: unknown;
}

/**
 * Writes a whole answer to `writer`: the retrieval parts, then `answer` as `0:` deltas, then the cited
 * sources, the thread annotation and the finish parts. `answer` is typically `streamText(...).fullStream`.
 * Resolves with what was written so the caller can store the thread message.
 */
export async function writeAnswerStream(
  writer: Pick<DataStreamWriter, 'write'> & { flush?(): void },
  answer: AsyncIterable<AnswerStreamPart>,
  options: WriteAnswerOptions,
): Promise<AnswerOutcome> {
  const { abortSignal } = options;
  writer.write(startStepPart(options.messageId));
  writer.write(searchToolCallPart(options.toolCallId, options.query));
  writer.write(searchToolResultPart(options.toolCallId, options.results));

  let text = '';
  let stepOpen = true;
  let finishReason: FinishReason = 'unknown';
  let usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  let error: unknown;
  let failed = false;
  let aborted = false;
  try {
    for await (const part of answer) {
      if (abortSignal?.aborted) break;
      if (isPart(part, 'text-delta')) {
        if (part.textDelta.length === 0) continue;
        const first = text === '';
        text += part.textDelta;
        writer.write(textPart(part.textDelta));
        // The reader is waiting for the first words: they go out now, not after the turn (coalescingWriter).
        if (first) writer.flush?.();
      } else if (isPart(part, 'tool-call')) {
        if (part.toolName === SEARCH_TOOL_NAME)
          writer.write(searchToolCallPart(part.toolCallId, queryOf(part.args)));
      } else if (isPart(part, 'tool-result')) {
        if (part.toolName === SEARCH_TOOL_NAME)
          writer.write(searchToolResultPart(part.toolCallId, options.searchResults?.(part.result) ?? []));
      } else if (isPart(part, 'step-finish')) {
        // The last step's end is written with the message's end below; one that called tools ends here.
        if (part.finishReason === 'tool-calls') {
          writer.write(finishStepPart('tool-calls', part.usage));
          stepOpen = false;
        }
      } else if (isPart(part, 'step-start')) {
        if (!stepOpen) writer.write(startStepPart(options.messageId));
        stepOpen = true;
      } else if (isPart(part, 'finish')) {
        finishReason = part.finishReason;
        usage = { promptTokens: part.usage.promptTokens, completionTokens: part.usage.completionTokens };
      } else if (isPart(part, 'error')) {
        // `streamText` reports an abort as an error part; an abort is the client leaving, not a failure.
        if (abortSignal?.aborted || isAbortError(part.error)) aborted = true;
        else {
          failed = true;
          error = part.error;
        }
        break;
      }
    }
  } catch (caught) {
    // An abort surfaces as a rejected read; only a failure while the client is still there is an error.
    if (abortSignal?.aborted || isAbortError(caught)) aborted = true;
    else {
      failed = true;
      error = caught;
    }
  }

  const known = options.sources.map((s) => s.id);
  const citedIds = citedSourceIds(text, known);
  if (aborted || abortSignal?.aborted) {
    return { text, finishReason: 'unknown', usage, citedIds, aborted: true };
  }
  if (failed) {
    const message = options.errorMessage;
    writer.write(errorPart(typeof message === 'function' ? message(error) : message));
    return { text, finishReason: 'error', usage, citedIds, aborted: false, error };
  }
  const byId = new Map(options.sources.map((s) => [s.id, s]));
  for (const id of citedIds) {
    const source = byId.get(id);
    if (source !== undefined) writer.write(sourcePart(source));
  }
  writer.write(threadAnnotationPart(options.threadId));
  writer.write(finishStepPart(finishReason, usage));
  writer.write(finishMessagePart(finishReason, usage, options.threadId));
  return { text, finishReason, usage, citedIds, aborted: false };
}

/** A writer whose parts are sent in batches; `flush` sends what is pending now. */
export interface CoalescingWriter extends Pick<DataStreamWriter, 'write'> {
  flush(): void;
}

/**
 * Joins the parts written within one turn of the event loop into one chunk of the response. Every
 * chunk costs a pass through the response's stream layers and a socket write, and the bytes on the wire
 * are the same lines either way. Parts that arrive apart (a model streaming token by token) still go
 * out apart, one turn later at most. Call `flush` before the stream ends.
 */
export function coalescingWriter(writer: Pick<DataStreamWriter, 'write'>): CoalescingWriter {
  let pending = '';
  let scheduled: NodeJS.Immediate | undefined;
  const flush = (): void => {
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    if (pending === '') return;
    // Several whole `CODE:JSON\n` lines are still a valid chunk of the stream.
    const chunk = pending as DataStreamString;
    pending = '';
    writer.write(chunk);
  };
  return {
    write(part) {
      pending += part;
      scheduled ??= setImmediate(flush);
    },
    flush,
  };
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function queryOf(args: unknown): string {
  const query = (args as { query?: unknown } | null)?.query;
  return typeof query === 'string' ? query : '';
}

function isPart<
  T extends 'text-delta' | 'finish' | 'error' | 'tool-call' | 'tool-result' | 'step-start' | 'step-finish',
>(part: AnswerStreamPart, type: T): part is Extract<AnswerStreamPart, { type: T }> {
  return part.type === type;
}
