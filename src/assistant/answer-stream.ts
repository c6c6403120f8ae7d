/**
 * One answer as wire-neutral events. `streamAnswer` reads the model's parts and tells an `AnswerSink`
 * what happened (the retrieval step, text, a model's own searches, the cited sources, the end or an
 * error); each wire protocol is a sink that encodes those events: the v1 data stream
 * (`stream-protocol.ts`) and the v2 UI message stream (`ui-message-stream.ts`).
 */
import type { CitableSource, SearchResultItem } from './answer-sources.ts';
import { citedSourceIds } from './citations.ts';

/**
 * Why an answer ended, as stored with it and sent on the wires: the AI SDK's unified reasons, plus
 * `unknown` for an answer that never finished (the reader left, or the server stopped mid-answer).
 */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'content-filter'
  | 'tool-calls'
  | 'error'
  | 'other'
  | 'unknown';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/**
 * Most characters of one answer. A model that never stops (a local model in a repetition loop, which
 * Ollama lets run without a token limit by default, or a provider ignoring `maxOutputTokens`) kept
 * streaming for as long as the reader stayed, and every character was kept in memory, in the resumable
 * stream's record and in the stored answer. Far above any answer a site can ask for (32,000 tokens of
 * `maxOutputTokens`, about 130,000 characters); past it the answer ends as a length stop, and the
 * request to the provider is cancelled.
 */
export const MAX_ANSWER_CHARS = 256_000;

/** Name of the tool call that shows the retrieval step in the stream. */
export const SEARCH_TOOL_NAME = 'search';

/**
 * The parts an answer is read from: a model's stream or `streamText`'s, as `providers/model-stream.ts`
 * maps them (one shape for both, so this module does not follow the SDK's part names).
 */
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

/**
 * What a reader is told of an answer its server stopped before the end: a shutdown's grace period over
 * (the reader's own stream, stored `aborted`), or the writer gone (a resumer's, on another server).
 */
export const SERVER_STOPPED_MESSAGE = 'The answer was interrupted (its server stopped). Ask again to get it.';

/** What a wire protocol is told about one answer, in this order: start, search, text…, finish or error. */
export interface AnswerSink {
  start(): void;
  /** A search shown as a completed call of the `search` tool (the retrieval, or a model's own). */
  searchCall(toolCallId: string, query: string): void;
  searchResult(toolCallId: string, pages: readonly SearchResultItem[]): void;
  text(delta: string): void;
  /** A step that ended in tool calls; `stepStart` opens the next one. */
  stepEnd(usage: TokenUsage): void;
  stepStart(): void;
  /** The answer ended: the sources it cites, in order of first citation. */
  finish(cited: readonly CitableSource[], finishReason: FinishReason, usage: TokenUsage): void;
  /** The answer failed after it started; `message` is safe to show. Nothing follows. */
  error(message: string): void;
  /** Sends what is buffered now: the reader is waiting for the first words. */
  flush(): void;
}

export interface StreamAnswerOptions {
  toolCallId: string;
  /** The search query shown as the retrieval's tool call; null: there was no retrieval to show. */
  query: string | null;
  results: readonly SearchResultItem[];
  /** Sources the answer may cite; looked up when it ends, so sources a model's searches add count. */
  sources: () => readonly CitableSource[];
  /** Text of the error event when the answer fails; must be safe to show (the reader sees it). */
  errorMessage: (error: unknown) => string;
  /** The reader went away: stop reading the answer and tell the sink nothing more. */
  abortSignal?: { readonly aborted: boolean };
  /**
   * When the answer was stopped by the server rather than by its reader (a shutdown's grace period
   * over), what to tell the reader, who is still there: their stream then ends with an error, not
   * mid-sentence. Null or absent: nothing is said.
   */
  stoppedBecause?: () => string | null;
  /** The pages of a model's own `search` call, from the tool's result. */
  searchResults?: (result: unknown) => readonly SearchResultItem[];
}

/** The answer ended without any text. */
export class EmptyAnswerError extends Error {
  override name = 'EmptyAnswerError';
  constructor() {
    super('The model ended its answer without writing anything');
  }
}

export interface AnswerOutcome {
  /** The answer text sent (partial when aborted or failed). */
  text: string;
  finishReason: FinishReason;
  usage: TokenUsage;
  /** Ids of the sources cited in `text` (and sent, unless the answer failed or was aborted). */
  citedIds: string[];
  aborted: boolean;
  /** The error of a failed answer stream (not sent to the client). */
  error?: unknown;
}

/** Reads `answer` (typically a model's stream) to its end and tells `sink` what to send. */
export async function streamAnswer(
  answer: AsyncIterable<AnswerStreamPart>,
  sink: AnswerSink,
  options: StreamAnswerOptions,
): Promise<AnswerOutcome> {
  const { abortSignal } = options;
  sink.start();
  if (options.query !== null) {
    sink.searchCall(options.toolCallId, options.query);
    sink.searchResult(options.toolCallId, options.results);
  }

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
        const delta = withinAnswerLimit(text.length, part.textDelta);
        text += delta;
        if (delta !== '') sink.text(delta);
        if (first) sink.flush();
        if (delta.length < part.textDelta.length || text.length >= MAX_ANSWER_CHARS) {
          // Leaving the loop cancels the model's stream (and its request).
          finishReason = 'length';
          break;
        }
      } else if (isPart(part, 'tool-call')) {
        if (part.toolName === SEARCH_TOOL_NAME) sink.searchCall(part.toolCallId, queryOf(part.args));
      } else if (isPart(part, 'tool-result')) {
        if (part.toolName === SEARCH_TOOL_NAME)
          sink.searchResult(part.toolCallId, options.searchResults?.(part.result) ?? []);
      } else if (isPart(part, 'step-finish')) {
        // The last step's end goes out with the answer's end; one that called tools ends here.
        if (part.finishReason === 'tool-calls') {
          sink.stepEnd(part.usage);
          stepOpen = false;
        }
      } else if (isPart(part, 'step-start')) {
        if (!stepOpen) sink.stepStart();
        stepOpen = true;
      } else if (isPart(part, 'finish')) {
        finishReason = part.finishReason;
        usage = { promptTokens: part.usage.promptTokens, completionTokens: part.usage.completionTokens };
      } else if (isPart(part, 'error')) {
        // `streamText` reports an abort as an error part; an abort is the reader leaving, not a failure.
        if (abortSignal?.aborted || isAbortError(part.error)) aborted = true;
        else {
          failed = true;
          error = part.error;
        }
        break;
      }
    }
  } catch (caught) {
    // An abort surfaces as a rejected read; only a failure while the reader is still there is an error.
    if (abortSignal?.aborted || isAbortError(caught)) aborted = true;
    else {
      failed = true;
      error = caught;
    }
  }

  // A model that ended without a word (one that kept calling tools to the step limit, say) failed: the
  // reader is told so instead of getting a blank answer.
  if (!aborted && !failed && !abortSignal?.aborted && text === '') {
    failed = true;
    error = new EmptyAnswerError();
  }
  const sources = options.sources();
  const citedIds = citedSourceIds(
    text,
    sources.map((s) => s.id),
  );
  if (aborted || abortSignal?.aborted) {
    const because = options.stoppedBecause?.() ?? null;
    if (because !== null) sink.error(because);
    return { text, finishReason: 'unknown', usage, citedIds, aborted: true };
  }
  if (failed) {
    sink.error(options.errorMessage(error));
    return { text, finishReason: 'error', usage, citedIds, aborted: false, error };
  }
  const byId = new Map(sources.map((s) => [s.id, s]));
  const cited: CitableSource[] = [];
  for (const id of citedIds) {
    const source = byId.get(id);
    if (source !== undefined) cited.push(source);
  }
  sink.finish(cited, finishReason, usage);
  return { text, finishReason, usage, citedIds, aborted: false };
}

/** A writer whose texts are sent in batches; `flush` sends what is pending now. */
export interface CoalescingWriter {
  write(text: string): void;
  flush(): void;
}

/**
 * Joins the texts written within one turn of the event loop into one chunk of the response. Every
 * chunk costs a pass through the response's stream layers and a socket write, and the bytes on the wire
 * are the same either way. Texts that arrive apart (a model streaming token by token) still go out
 * apart, one turn later at most. Call `flush` before the stream ends.
 */
export function coalescingWriter(writer: { write(text: string): void }): CoalescingWriter {
  let pending = '';
  let scheduled: NodeJS.Immediate | undefined;
  const flush = (): void => {
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    writer.write(chunk);
  };
  return {
    write(text) {
      pending += text;
      scheduled ??= setImmediate(flush);
    },
    flush,
  };
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** The part of `delta` that fits in an answer of `length` characters so far, not splitting a surrogate pair. */
function withinAnswerLimit(length: number, delta: string): string {
  const room = MAX_ANSWER_CHARS - length;
  if (delta.length <= room) return delta;
  const cut = delta.slice(0, Math.max(0, room));
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
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
