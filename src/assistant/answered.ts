/**
 * Whether an answer answered its question, decided once when the answer is stored and kept on it
 * (`thread_messages.answered`), so the owner's console counts and lists unanswered questions without
 * judging old text again. Cheap by design: it runs on the request path, on what the answer already has.
 */
import type { ThreadMessageStatus } from '../storage/schema.ts';
import { NO_COVERAGE_MESSAGE } from './builtin-answerer.ts';
import { MIN_RETRIEVAL_STRENGTH } from './retrieval-strength.ts';
import { isSmallTalkReply } from './small-talk.ts';

/** Characters at the start of an answer where a model says the docs do not cover the question. */
const DECLINE_WINDOW_CHARS = 200;

/**
 * How a model says it could not answer: the built-in answerer's fixed sentence, and what the system
 * prompt tells a real model to say ("say plainly that the documentation doesn't cover it").
 */
const DECLINES =
  /couldn['’]t find|could not find|(?:documentation|docs|excerpts) (?:doesn['’]t|does not|don['’]t|do not) (?:cover|mention|say|include|contain|answer)/i;

/**
 * Whether the answer's opening says the docs do not cover the question, or the answer is the built-in
 * answerer's reply to small talk ("hi there"), which answers nothing from the docs either.
 */
export function declines(text: string): boolean {
  if (text.startsWith(NO_COVERAGE_MESSAGE) || isSmallTalkReply(text)) return true;
  // An answer cut short in its first words ("I couldn"): the built-in answerer's decline, begun.
  const begun = text.trim();
  if (begun !== '' && NO_COVERAGE_MESSAGE.startsWith(begun)) return true;
  return DECLINES.test(text.slice(0, DECLINE_WINDOW_CHARS));
}

/**
 * Answered: a non-empty answer that does not decline, given retrieval at least `MIN_RETRIEVAL_STRENGTH`
 * strong, complete or ended early after it began (`aborted`: stopped or left by its reader, or cut by a
 * shutdown; a reader who stops an answer that is going well is no gap in the docs, and the owner's
 * coverage gaps listed every such question). Anything else
 * (empty, failed, declined, or written from weak retrieval, when a model is most likely to guess or pad)
 * is an unanswered question for the owner.
 */
export function isAnswered(answer: {
  status: ThreadMessageStatus;
  text: string;
  retrievalStrength: number;
}): boolean {
  return (
    (answer.status === 'complete' || answer.status === 'aborted') &&
    answer.text.trim() !== '' &&
    !declines(answer.text) &&
    answer.retrievalStrength >= MIN_RETRIEVAL_STRENGTH
  );
}
