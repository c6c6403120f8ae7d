/**
 * A whole answer at once, for callers that cannot read a stream (the MCP `ask_docs` tool): the same
 * answer service as the assistant routes (charged, stored in a thread, refunded when nothing came out),
 * collected instead of streamed.
 */
import type { AnswerService, AskInput } from '../assistant/answer-question.ts';
import type { CitableSource } from '../assistant/answer-sources.ts';
import type { AnswerSink } from '../assistant/answer-stream.ts';

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

/** The answer as one text for a model to read: the answer, then its numbered sources with links. */
export function answerAsText(answer: CollectedAnswer): string {
  const lines = [answer.text.trim()];
  if (answer.error !== undefined) lines.push(`(The answer stopped early: ${answer.error})`);
  if (answer.sources.length > 0) {
    lines.push('', 'Sources:');
    for (const source of answer.sources) lines.push(`[${source.id}] ${source.title}: ${source.url}`);
  }
  return lines.join('\n');
}
