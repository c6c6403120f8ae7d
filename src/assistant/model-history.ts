import type { Turn } from './start-answer.ts';

/**
 * Messages of the conversation the model is given, the question included: the latest ones (about 20
 * questions and answers), of the stored thread on v2, of the client's history on v1.
 */
export const MAX_HISTORY_MESSAGES = 40;
/**
 * Characters of the conversation before the question that the model is given (about 25,000 tokens).
 * The count alone bounds nothing: 20 stored questions of 64,000 characters made every later follow-up
 * in the thread a prompt of 1.3 million characters, past any model's context window, so the thread
 * failed for good. This keeps ordinary chats whole (20 answers of a few thousand characters) and the
 * previous question and answer even when that question was as long as one may be (64,000) with an answer
 * of up to 36,000, and leaves room for the question (as long) and the excerpts in a 128k-token window.
 * Turns are kept whole or not at all: after an answer past 100,000 characters (one may reach
 * `MAX_ANSWER_CHARS`, 256,000) the model is given the question alone.
 */
export const MAX_HISTORY_CHARS = 100_000;

/**
 * The conversation the model is given: the question (the last turn), whole, after the latest turns
 * before it that fit in `MAX_HISTORY_MESSAGES` and `MAX_HISTORY_CHARS`, from a question on. Older turns
 * go first, never the newer ones, and an answer whose question went goes with it: a conversation that
 * opens with an answer is refused by some providers (Anthropic, Gemini). Empty turns are left out
 * (an empty question of a v1 history, an answer that failed before any text): Anthropic refuses an
 * empty text block, which made every later question of such a chat fail.
 */
export function modelHistory(turns: readonly Turn[]): Turn[] {
  const question = turns.at(-1);
  if (question === undefined) return [];
  const earlier: Turn[] = [];
  let chars = 0;
  for (let i = turns.length - 2; i >= 0 && earlier.length < MAX_HISTORY_MESSAGES - 1; i--) {
    const turn = turns[i] as Turn;
    if (turn.text.trim() === '') continue;
    chars += turn.text.length;
    if (chars > MAX_HISTORY_CHARS) break;
    earlier.push(turn);
  }
  earlier.reverse();
  const first = earlier.findIndex((turn) => turn.role === 'user');
  return [...(first < 0 ? [] : earlier.slice(first)), question];
}

/**
 * The turns with each run of one role joined into one turn (texts a blank line apart), as a provider
 * is given them. A stored thread can hold two questions in a row (an answer that failed before any
 * text is left out, and a follow-up may be sent while the previous answer is still being written), and
 * some models refuse that: Mistral's chat templates, served by vLLM or any OpenAI-compatible server,
 * answer 400 "conversation roles must alternate user/assistant", which failed every later question of
 * the chat. The built-in answerer is given the turns as they are: it answers the last question alone.
 */
export function alternatingTurns(turns: readonly Turn[]): Turn[] {
  const out: Turn[] = [];
  for (const turn of turns) {
    const last = out.at(-1);
    if (last?.role === turn.role)
      out[out.length - 1] = { role: turn.role, text: `${last.text}\n\n${turn.text}` };
    else out.push(turn);
  }
  return out;
}
