import { type ContextItem, messageText, type RequestMessage } from './request-schema.ts';
import { smallTalk } from './small-talk.ts';
import type { Turn } from './start-answer.ts';

/** Follow-ups shorter than this many words borrow the previous question ("and on Windows?"). */
const SHORT_FOLLOW_UP_WORDS = 6;
/**
 * Longer follow-ups borrow it too when they refer back to it ("and how do I do that incrementally
 * later?"): they start with "and", "also", "what about"… or point at it with "that", "it", "them"…
 */
const REFERRING_FOLLOW_UP_WORDS = 12;
const REFERS_BACK =
  /^(?:and|also|but|so|then|what about|how about)\b|\b(?:that|this|it|its|those|these|them|they|there|same)\b/i;
/**
 * A short question that asks something of its own: it opens with a question word and its verb ("What
 * is Docent?", "How do I change the port?", "Where are models stored?") and points at nothing before it
 * (`REFERS_BACK`, `instead`, `too`, `else`…). Asked in a thread, it is not read as a follow-up: "What is
 * Docent?" after a question about rotating keys is answered about Docent, not about keys. "Which" is
 * left out ("which is faster?" picks among what was said), and so are "should" and "would" (advice on what was
 * said: "how should my client retry?") and questions of two words.
 */
const OWN_QUESTION = /^(?:what|how|where|when|why|who)(?:'s|\s+(?:is|are|do|does|can|much|many))\b/i;
const POINTS_ELSEWHERE = /\b(?:instead|too|either|else|one|ones|other|others|former|latter|default)\b/i;
const OWN_QUESTION_MIN_WORDS = 3;
/**
 * "What is the limit?", "Where's the file?", "What are the options?": the one thing asked about is named
 * by a bare noun after "the", which takes it as known: the limit, file or options of what was just asked.
 */
const THE_THING_BEFORE = /^(?:what|how|where|when|why|who)(?:'s|\s+(?:is|are))\s+the\s+[\w-]+\s*\??$/i;

/** How much of each context item joins the query: enough to sharpen it, not enough to drown it. */
const CONTEXT_QUERY_CHARS = 300;

/** Whether a question leans on the one before it: short ("and on Windows?"), or referring back to it. */
function followsUp(question: string): boolean {
  const text = question.trim();
  const words = text.split(/\s+/).filter(Boolean).length;
  if (REFERS_BACK.test(text)) return words <= REFERRING_FOLLOW_UP_WORDS;
  if (words >= SHORT_FOLLOW_UP_WORDS) return false;
  return !(
    words >= OWN_QUESTION_MIN_WORDS &&
    OWN_QUESTION.test(text) &&
    !POINTS_ELSEWHERE.test(text) &&
    !THE_THING_BEFORE.test(text)
  );
}

/**
 * The previous question when `question` leans on it (a short follow-up, or one that refers back to it),
 * else undefined: what the search query and the built-in answerer borrow from.
 */
export function borrowedQuestion(question: string, previousQuestion: string | undefined): string | undefined {
  // An empty message asks nothing, not the previous question again.
  return previousQuestion && question.trim() !== '' && followsUp(question) ? previousQuestion : undefined;
}

/** How far back a run of follow-ups is walked to find the question they all lean on. */
const MAX_FOLLOW_UP_RUN = 20;

/**
 * The previous question, as a follow-up borrows it, from the reader's earlier messages (oldest first):
 * the latest one that asks something, after the question it leaned on when it was a follow-up itself.
 * A thank-you or a greeting asks nothing ("thanks!", then "and for the widget?" searched "thanks!" and
 * lost the widget's subject), nor does an empty message. And a follow-up to a follow-up keeps the
 * subject of the run: "How do I rotate a key?", "and on postgres?", "what about the second option"
 * searched "and on postgres?" alone with the third, and lost the key. At most two questions, the run's
 * subject and the last, so a long run of follow-ups adds nothing more; a question of its own starts a
 * new subject.
 */
export function previousQuestion(earlier: readonly string[]): string | undefined {
  // Newest first, and only as far back as a run can reach: a thread may hold thousands of messages.
  const asking: string[] = [];
  for (let i = earlier.length - 1; i >= 0 && asking.length <= MAX_FOLLOW_UP_RUN; i--) {
    const text = earlier[i] as string;
    if (text.trim() !== '' && smallTalk(text) === null) asking.push(text);
  }
  const previous = asking[0];
  if (previous === undefined) return undefined;
  let subject = 0;
  while (subject + 1 < asking.length && borrowedQuestion(asking[subject] as string, asking[subject + 1]))
    subject++;
  return subject === 0 ? previous : `${asking[subject]}\n${previous}`;
}

/**
 * The search query for a question: the question, the previous question when this one is a short
 * follow-up or one that refers back to it, and the beginning of any selected text or code the reader
 * sent along.
 */
export function questionQuery(
  question: string,
  previousQuestion: string | undefined,
  context: readonly Pick<ContextItem, 'value'>[] = [],
): string {
  const parts = [question];
  const borrowed = borrowedQuestion(question, previousQuestion);
  if (borrowed) parts.unshift(borrowed);
  for (const item of context) parts.push(item.value.slice(0, CONTEXT_QUERY_CHARS));
  return parts.join('\n').trim();
}

/** `questionQuery` of a v1 request, whose history is the client's. */
export function retrievalQuery(
  messages: readonly RequestMessage[],
  context: readonly ContextItem[] = [],
): string {
  const userTexts = messages.filter((m) => m.role === 'user').map(messageText);
  return questionQuery(userTexts.at(-1) ?? '', previousQuestion(userTexts.slice(0, -1)), context);
}

/**
 * The conversation as the model sees it. Client-sent `system` and `data` messages are dropped: a
 * public key sits in browsers, so the instructions a model follows must come from the server only.
 */
export function clientTurns(messages: readonly RequestMessage[]): Turn[] {
  const out: Turn[] = [];
  for (const message of messages) {
    const text = messageText(message);
    if (message.role === 'user') out.push({ role: 'user', text });
    else if (message.role === 'assistant' && text) out.push({ role: 'assistant', text });
  }
  return out;
}
