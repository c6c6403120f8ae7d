/**
 * The one module that writes the UI message stream of the v2 assistant endpoint (AI SDK 5, 6 and 7:
 * SSE `data: <json>\n\n` chunks, then `data: [DONE]\n\n`). Only chunks and keys that every release of
 * those generations accepts are written, down to the strictest (`ai@5.0.0`, `6.0.0`, `7.0.0` reject
 * unknown keys, and 5.0.0 rejects a `finishReason` on `finish`):
 *
 * `start` {messageId, messageMetadata: {threadId, threadKey?}} · `start-step` · the retrieval as a
 * provider-executed dynamic `search` tool (`tool-input-available`, `tool-output-available`) ·
 * `text-start`/`text-delta`…/`text-end` · `source-url` per cited section · `finish-step` · `finish`
 * {messageMetadata: {threadId, finishReason, usage}} · `[DONE]`. A failure after the start is an
 * `error` chunk {errorText} (then `[DONE]`).
 */
import type { CitableSource, SearchResultItem } from './answer-sources.ts';
import { type AnswerSink, type FinishReason, SEARCH_TOOL_NAME, type TokenUsage } from './answer-stream.ts';

/** Headers of every v2 stream response (those the SDK's own `createUIMessageStreamResponse` sends). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Vercel-AI-UI-Message-Stream': 'v1',
  // Stops nginx-style proxies from buffering the stream, which would delay the first token.
  'X-Accel-Buffering': 'no',
});

/** The stream's last line. */
export const DONE_CHUNK = 'data: [DONE]\n\n';

/** A chunk of the UI message stream as the AI SDK types it (the subset Docent writes). */
export type UiMessageChunk =
  | { type: 'start'; messageId: string; messageMetadata: AnswerMetadata }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | {
      type: 'tool-input-available';
      toolCallId: string;
      toolName: string;
      input: { query: string };
      providerExecuted: true;
      dynamic: true;
    }
  | {
      type: 'tool-output-available';
      toolCallId: string;
      output: { type: 'search'; results: { path: string; url: string; metadata: { title: string } }[] };
      providerExecuted: true;
      dynamic: true;
    }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'source-url'; sourceId: string; url: string; title: string }
  | { type: 'finish'; messageMetadata: AnswerMetadata }
  | { type: 'error'; errorText: string };

/** What a `useChat` app reads from `message.metadata`: the thread to send back, and how it ended. */
export interface AnswerMetadata {
  threadId: string;
  /** Only when this answer created the thread. */
  threadKey?: string;
  finishReason?: FinishReason;
  usage?: { inputTokens: number; outputTokens: number };
}

/** One chunk as SSE, byte for byte what the SDK's `JsonToSseTransformStream` writes. */
export function sseChunk(chunk: UiMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

export function searchCallChunk(toolCallId: string, query: string): UiMessageChunk {
  return {
    type: 'tool-input-available',
    toolCallId,
    toolName: SEARCH_TOOL_NAME,
    input: { query },
    // Ran on the server: the client must not try to run a `search` tool itself.
    providerExecuted: true,
    dynamic: true,
  };
}

export function searchResultChunk(toolCallId: string, pages: readonly SearchResultItem[]): UiMessageChunk {
  return {
    type: 'tool-output-available',
    toolCallId,
    output: {
      type: 'search',
      results: pages.map((p) => ({ path: p.path, url: p.url, metadata: { title: p.title } })),
    },
    providerExecuted: true,
    dynamic: true,
  };
}

export function sourceChunk(source: CitableSource): UiMessageChunk {
  return { type: 'source-url', sourceId: source.id, url: source.url, title: source.title };
}

/** The v2 encoding of an answer's events (answer-stream.ts). */
export function uiMessageStreamSink(
  writer: { write(text: string): void; flush?(): void },
  ids: { messageId: string; threadId: string; threadKey?: string | undefined },
): AnswerSink {
  const write = (chunk: UiMessageChunk): void => writer.write(sseChunk(chunk));
  let texts = 0;
  let open: string | undefined;
  const closeText = (): void => {
    if (open === undefined) return;
    write({ type: 'text-end', id: open });
    open = undefined;
  };
  const thread: AnswerMetadata = { threadId: ids.threadId };
  if (ids.threadKey) thread.threadKey = ids.threadKey;
  return {
    start: () => {
      write({ type: 'start', messageId: ids.messageId, messageMetadata: thread });
      write({ type: 'start-step' });
    },
    searchCall: (toolCallId, query) => write(searchCallChunk(toolCallId, query)),
    searchResult: (toolCallId, pages) => write(searchResultChunk(toolCallId, pages)),
    text: (delta) => {
      if (open === undefined) {
        open = `txt_${texts++}`;
        write({ type: 'text-start', id: open });
      }
      write({ type: 'text-delta', id: open, delta });
    },
    stepEnd: () => {
      closeText();
      write({ type: 'finish-step' });
    },
    stepStart: () => write({ type: 'start-step' }),
    finish: (cited, finishReason, usage) => {
      closeText();
      for (const source of cited) write(sourceChunk(source));
      write({ type: 'finish-step' });
      write({
        type: 'finish',
        messageMetadata: { threadId: ids.threadId, finishReason, usage: usageOf(usage) },
      });
      writer.write(DONE_CHUNK);
    },
    error: (message) => {
      closeText();
      write({ type: 'error', errorText: message });
      writer.write(DONE_CHUNK);
    },
    flush: () => writer.flush?.(),
  };
}

/** Token usage in the generation-5 names. */
function usageOf(usage: TokenUsage): { inputTokens: number; outputTokens: number } {
  return { inputTokens: usage.promptTokens, outputTokens: usage.completionTokens };
}
