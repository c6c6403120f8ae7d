/**
 * A whole answer at once, for callers that cannot read a stream (the MCP `ask_docs` tool): the same
 * answer service as the assistant routes (charged, stored in a thread, refunded when nothing came out),
 * collected instead of streamed.
 */

import type { AnswerService, AskInput } from '../assistant/answer-question.ts';
import type { CitableSource } from '../assistant/answer-sources.ts';
import type { AnswerSink } from '../assistant/answer-stream.ts';
import { DomainError } from '../errors/domain-error.ts';
import { inertLine } from '../pages/inert-markdown.ts';

export interface CollectedAnswer {
  text: string;
  /** The sources the text cites as `[n]`, in order of first citation. */
  sources: CitableSource[];
  threadId: string;
  /** Only when this question created the thread: send it back with `threadId` to follow up. */
  threadKey?: string | undefined;
  /** Set when the answer failed after it started; `text` holds what came before. */
  error?: string;
}

export async function askDocs(answers: AnswerService, input: AskInput): Promise<CollectedAnswer> {
  const started = await answers.ask(input);
  const collected: CollectedAnswer = {
    text: '',
    sources: [],
    threadId: started.threadId,
    ...(started.threadKey === undefined ? {} : { threadKey: started.threadKey }),
  };
  const parts: string[] = [];
  const sink: AnswerSink = {
    start() {},
    searchCall() {},
    searchResult() {},
    text(delta) {
      parts.push(delta);
    },
    stepEnd() {},
    stepStart() {},
    finish(cited) {
      collected.sources = [...cited];
    },
    error(message) {
      collected.error = message;
    },
    flush() {},
  };
  await started.write(sink);
  collected.text = parts.join('');
  return collected;
}

/** One `ask_docs` call: the question and the thread it follows up, if any. */
export type AskDocsCall = Pick<AskInput, 'question' | 'threadId' | 'threadKey'>;

/**
 * `ask_docs` for the calls of one MCP request: each call is charged, stored and refunded under a request
 * id of its own (`<id>`, `<id>.2`, …: a JSON-RPC batch holds several), and a failure that is not the
 * caller's (no domain error) is logged and told as the assistant being unavailable, never as what broke.
 */
export function docsAsker(
  answers: AnswerService,
  base: Omit<AskInput, 'question' | 'threadId' | 'threadKey'>,
): (call: AskDocsCall) => Promise<CollectedAnswer> {
  let calls = 0;
  return (call) => {
    calls++;
    const requestId = calls === 1 ? base.requestId : `${base.requestId}.${calls}`;
    return askDocs(answers, { ...base, ...call, requestId }).catch((error: unknown) => {
      if (error instanceof DomainError) throw error;
      base.logger.error({ err: error, requestId }, 'ask_docs failed unexpectedly');
      throw new DomainError(
        'unavailable',
        `The assistant failed while answering (request ${requestId}); try again`,
      );
    });
  };
}

/**
 * The answer as one text for a model to read: the answer, its numbered sources with links, and how to
 * follow up (many clients show a model only the text, not the structured result).
 */
export function answerAsText(answer: CollectedAnswer): string {
  const lines = [answer.text.trim()];
  if (answer.error !== undefined) lines.push(`(The answer stopped early: ${answer.error})`);
  if (answer.sources.length > 0) {
    lines.push('', 'Sources:');
    for (const source of answer.sources)
      lines.push(`[${source.id}] ${inertLine(source.title)}: ${source.url}`);
  }
  lines.push(
    '',
    answer.threadKey === undefined
      ? `To follow up, call ask_docs again with threadId "${answer.threadId}" and the same threadKey.`
      : `To follow up, call ask_docs again with threadId "${answer.threadId}" and threadKey "${answer.threadKey}".`,
  );
  return lines.join('\n');
}
