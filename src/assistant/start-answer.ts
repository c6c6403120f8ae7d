import type { LanguageModelV1, LanguageModelV1Prompt } from '@ai-sdk/provider';
import { type CoreMessage, streamText } from 'ai';
import type { SearchResult } from '../search/site-search.ts';
import { BuiltinAnswerer } from './builtin-answerer.ts';
import { type AnswerStart, awaitAnswerStart } from './providers/answer-start.ts';
import type { RequestMessage } from './request-schema.ts';
import { messageText } from './retrieval-query.ts';
import { type AnswerSources, searchTool } from './search-tool.ts';
import { type AnswerStreamPart, SEARCH_TOOL_NAME } from './stream-protocol.ts';

export interface StartAnswerInput {
  model: LanguageModelV1;
  messages: readonly RequestMessage[];
  /** The client's connection: `aborted` is checked as the answer starts; `signal` goes to a provider. */
  gone: { readonly aborted: boolean; readonly signal: AbortSignal };
  /** Searches the model may run itself (`search` tool); 0, or the built-in answerer, means none. */
  searchSteps: number;
  sources: AnswerSources;
  search: (query: string) => Promise<SearchResult[]>;
}

/**
 * Calls the model and waits for its answer to start (providers/answer-start.ts).
 *
 * The model's own stream is read directly: an answer without tools is one step, so `streamText` would
 * only add prompt re-validation, telemetry spans and stream layers to every token (measured). With the
 * `search` tool the answer may take several model calls, and `streamText` runs them. Retries live in the
 * providers' fetch, before any text exists (providers/resilient-fetch.ts).
 */
export function startAnswer(input: StartAnswerInput): Promise<AnswerStart<AnswerStreamPart>> {
  const { model, gone } = input;
  const builtin = model instanceof BuiltinAnswerer;
  const steps = builtin ? 0 : input.searchSteps;
  return awaitAnswerStart(async (): Promise<AsyncIterable<AnswerStreamPart>> => {
    const turns = conversation(input.messages);
    if (steps > 0) {
      return streamText({
        model,
        messages: turns.map((t): CoreMessage => ({ role: t.role, content: t.text })),
        tools: {
          [SEARCH_TOOL_NAME]: searchTool({ steps, sources: input.sources, search: input.search }),
        },
        // One step per search, one to answer, and one more after a search past the limit is refused.
        maxSteps: steps + 2,
        maxRetries: 0,
        abortSignal: gone.signal,
        // Failures arrive as stream parts; the route logs them with the request id.
        onError: () => {},
      }).fullStream;
    }
    const prompt: LanguageModelV1Prompt = turns.map((t) => ({
      role: t.role,
      content: [{ type: 'text', text: t.text }],
    }));
    const { stream } = await model.doStream({
      inputFormat: 'messages',
      mode: { type: 'regular' },
      prompt,
      // The built-in answerer runs in-process and stops when its reader cancels its stream (the stream
      // writer stops reading once the client is gone); only a provider's fetch needs a real signal,
      // and making one is not free.
      ...(builtin ? {} : { abortSignal: gone.signal }),
    });
    return stream;
  }, gone);
}

/**
 * The conversation as the model sees it. Client-sent `system` and `data` messages are dropped: a
 * public key sits in browsers, so the instructions a model follows must come from the server only.
 */
function conversation(messages: readonly RequestMessage[]): { role: 'user' | 'assistant'; text: string }[] {
  const out: { role: 'user' | 'assistant'; text: string }[] = [];
  for (const message of messages) {
    const text = messageText(message);
    if (message.role === 'user') out.push({ role: 'user', text });
    else if (message.role === 'assistant' && text) out.push({ role: 'assistant', text });
  }
  return out;
}
