import type { LanguageModelV3, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { type ModelMessage, stepCountIs, streamText } from 'ai';
import type { SearchResult } from '../search/site-search.ts';
import type { SourceList } from './answer-sources.ts';
import { type AnswerStreamPart, SEARCH_TOOL_NAME } from './answer-stream.ts';
import { BuiltinAnswerer } from './builtin-answerer.ts';
import { alternatingTurns } from './model-history.ts';
import { type AnswerStart, awaitAnswerStart } from './providers/answer-start.ts';
import { readModelAnswer } from './providers/fast-chat-stream.ts';
import { stepAnswerParts } from './providers/model-stream.ts';
import { searchTool } from './search-tool.ts';
import { withoutThinking } from './think-tags.ts';

/** One turn of the conversation the model sees; the last is the question. */
export interface Turn {
  role: 'user' | 'assistant';
  text: string;
}

export interface StartAnswerInput {
  model: LanguageModelV3;
  turns: readonly Turn[];
  /** The client's connection: `aborted` is checked as the answer starts; `signal` goes to a provider. */
  gone: { readonly aborted: boolean; readonly signal: AbortSignal };
  /** Searches the model may run itself (`search` tool); 0, or the built-in answerer, means none. */
  searchSteps: number;
  sources: SourceList;
  search: (query: string) => Promise<SearchResult[]>;
}

/**
 * Calls the model and waits for its answer to start (providers/answer-start.ts).
 *
 * The model's own stream (decoded by its provider package) is read directly: an answer without tools is
 * one step, so `streamText` would only add prompt re-validation, telemetry spans and stream layers to
 * every token. With the `search` tool the answer may take several model calls, and `streamText` runs
 * them. Retries live in the providers' fetch, before any text exists (providers/resilient-fetch.ts).
 */
export function startAnswer(input: StartAnswerInput): Promise<AnswerStart<AnswerStreamPart>> {
  const { model, gone } = input;
  const builtin = model instanceof BuiltinAnswerer;
  const steps = builtin ? 0 : input.searchSteps;
  return awaitAnswerStart(async (): Promise<AsyncIterable<AnswerStreamPart>> => {
    const turns = builtin ? input.turns : alternatingTurns(input.turns);
    if (steps > 0) {
      return withoutThinking(
        stepAnswerParts(
          streamText({
            model,
            messages: turns.map((t): ModelMessage => ({ role: t.role, content: t.text })),
            tools: {
              [SEARCH_TOOL_NAME]: searchTool({ steps, sources: input.sources, search: input.search }),
            },
            // One step per search, one to answer, and one more after a search past the limit is refused.
            stopWhen: stepCountIs(steps + 2),
            maxRetries: 0,
            abortSignal: gone.signal,
            // Failures arrive as stream parts; the route logs them with the request id.
            onError: () => {},
          }).fullStream,
        ),
      );
    }
    const prompt: LanguageModelV3Prompt = turns.map((t) => ({
      role: t.role,
      content: [{ type: 'text', text: t.text }],
    }));
    if (builtin) {
      // The built-in answerer runs in-process and stops when its reader cancels its stream (the stream
      // writer stops reading once the client is gone); only a provider's fetch needs a real signal,
      // and making one is not free.
      return readModelAnswer(model, { prompt });
    }
    return withoutThinking(await readModelAnswer(model, { prompt, abortSignal: gone.signal }));
  }, gone);
}
