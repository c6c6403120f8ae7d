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
import { formatDataStreamPart } from '@ai-sdk/ui-utils';
import type { CitableSource, SearchResultItem } from './answer-sources.ts';
import {
  type AnswerOutcome,
  type AnswerSink,
  type AnswerStreamPart,
  type FinishReason,
  SEARCH_TOOL_NAME,
  streamAnswer,
  type TokenUsage,
} from './answer-stream.ts';

export type { AnswerOutcome, AnswerStreamPart, FinishReason, TokenUsage };
export type { CitableSource, SearchResultItem };
export { coalescingWriter } from './answer-stream.ts';
export { SEARCH_TOOL_NAME };

/** One encoded line, `CODE:JSON\n` (the SDK declares this type but does not export it). */
export type DataStreamString = ReturnType<typeof formatDataStreamPart>;

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

/**
 * The v1 encoding of an answer's events (answer-stream.ts): `f:`, `9:`, `a:`, `0:`…, then `h:` per
 * cited source, `8:` with the thread id, `e:` and `d:`; `3:` on a failure.
 */
export function dataStreamSink(
  writer: { write(text: string): void; flush?(): void },
  ids: { messageId: string; threadId: string },
): AnswerSink {
  return {
    start: () => writer.write(startStepPart(ids.messageId)),
    searchCall: (toolCallId, query) => writer.write(searchToolCallPart(toolCallId, query)),
    searchResult: (toolCallId, pages) => writer.write(searchToolResultPart(toolCallId, pages)),
    text: (delta) => writer.write(textPart(delta)),
    stepEnd: (usage) => writer.write(finishStepPart('tool-calls', usage)),
    stepStart: () => writer.write(startStepPart(ids.messageId)),
    finish: (cited, finishReason, usage) => {
      for (const source of cited) writer.write(sourcePart(source));
      writer.write(threadAnnotationPart(ids.threadId));
      writer.write(finishStepPart(finishReason, usage));
      writer.write(finishMessagePart(finishReason, usage, ids.threadId));
    },
    error: (message) => writer.write(errorPart(message)),
    flush: () => writer.flush?.(),
  };
}

/**
 * Writes a whole answer to `writer` in the v1 data stream: the retrieval parts, then `answer` as `0:`
 * deltas, then the cited sources, the thread annotation and the finish parts. `answer` is typically
 * `streamText(...).fullStream`. Resolves with what was written so the caller can store the message.
 */
export function writeAnswerStream(
  writer: { write(text: string): void; flush?(): void },
  answer: AsyncIterable<AnswerStreamPart>,
  options: WriteAnswerOptions,
): Promise<AnswerOutcome> {
  const message = options.errorMessage;
  return streamAnswer(answer, dataStreamSink(writer, options), {
    toolCallId: options.toolCallId,
    query: options.query,
    results: options.results,
    sources: () => options.sources,
    errorMessage: (error) =>
      message === undefined
        ? DEFAULT_STREAM_ERROR_MESSAGE
        : typeof message === 'function'
          ? message(error)
          : message,
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    ...(options.searchResults ? { searchResults: options.searchResults } : {}),
  });
}
