/**
 * Whether an answer answered its question, decided once when the answer is stored and kept on it
 * (`thread_messages.answered`), so the owner's console counts and lists unanswered questions without
 * judging old text again. Cheap by design: it runs on the request path, on what the answer already has.
 */
import type { ThreadMessageStatus } from '../storage/schema.ts';
import type { FinishReason } from './answer-stream.ts';
import { isBuiltinDecline, isSmallTalkReply } from './answerer-phrases.ts';
import { MIN_RETRIEVAL_STRENGTH } from './retrieval-strength.ts';

/** Characters at the start of an answer where a model says the docs do not cover the question. */
const DECLINE_WINDOW_CHARS = 200;

/**
 * How a real model says it could not answer: what the system prompt tells it to say ("say plainly that
 * the documentation doesn't cover it"), in the reader's language, which the prompt tells it to answer
 * in; here in the languages the built-in answerer declines in too. The built-in answerer's own decline is
 * known in each of them (answerer-phrases.ts).
 */
const DECLINES = new RegExp(
  [
    // English
    "couldn['’]t find|could not find|(?:documentation|docs|excerpts) (?:doesn['’]t|does not|don['’]t|do not) (?:cover|mention|say|include|contain|answer)",
    // French
    "je n['’]ai (?:pas|rien) trouvé|(?:la documentation|les extraits) ne (?:couvre|couvrent|mentionne|mentionnent|dit|disent|contient|contiennent|traite|traitent|précise|précisent) (?:pas|rien)",
    // Spanish
    'no (?:encontré|he encontrado|pude encontrar)|(?:la documentación|los extractos) no (?:cubre|cubren|menciona|mencionan|dice|dicen|incluye|incluyen|contiene|contienen|explica|explican)',
    // Portuguese
    'não (?:encontrei|consegui encontrar)|(?:a documentação|os trechos) não (?:cobre|cobrem|menciona|mencionam|diz|dizem|inclui|incluem|contém|contêm|explica|explicam)',
    // German
    '(?:habe ich|konnte ich|ich habe|ich konnte) [^.]{0,60}?nichts? [^.]{0,30}?(?:gefunden|finden)|(?:die dokumentation|die auszüge) (?:deckt|decken|erwähnt|erwähnen|enthält|enthalten|behandelt|behandeln|beschreibt|beschreiben) [^.]{0,60}?(?:nicht|nichts)',
  ].join('|'),
  'i',
);

/**
 * Whether the answer's opening says the docs do not cover the question, or the answer is the built-in
 * answerer's reply to small talk ("hi there"), which answers nothing from the docs either.
 */
export function declines(text: string): boolean {
  if (isBuiltinDecline(text) || isSmallTalkReply(text)) return true;
  return DECLINES.test(text.slice(0, DECLINE_WINDOW_CHARS));
}

/**
 * Answered: a non-empty answer that does not decline, given retrieval at least `MIN_RETRIEVAL_STRENGTH`
 * strong, complete or ended early after it began (`aborted`: stopped or left by its reader, or cut by a
 * shutdown; a reader who stops an answer that is going well is no gap in the docs, and the owner's
 * coverage gaps listed every such question). Anything else
 * (empty, failed, declined, written from weak retrieval, when a model is most likely to guess or pad, or
 * stopped by the provider's content filter: Gemini's SAFETY or RECITATION, OpenAI's `content_filter`,
 * Claude's `refusal`, a Bedrock guardrail, whatever it had written by then) is an unanswered question for
 * the owner.
 */
export function isAnswered(answer: {
  status: ThreadMessageStatus;
  text: string;
  retrievalStrength: number;
  finishReason?: FinishReason;
}): boolean {
  return (
    (answer.status === 'complete' || answer.status === 'aborted') &&
    answer.finishReason !== 'content-filter' &&
    answer.text.trim() !== '' &&
    !declines(answer.text) &&
    answer.retrievalStrength >= MIN_RETRIEVAL_STRENGTH
  );
}
