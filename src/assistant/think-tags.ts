import type { AnswerStreamPart } from './answer-stream.ts';

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * A reasoning model served without a reasoning parser (DeepSeek R1, Qwen 3 and others on older Ollama,
 * vLLM or llama.cpp, through the OpenAI-compatible API) writes its thinking into the answer as
 * `<think>…</think>` before the answer itself. That block, at the start of a step's text, never reaches
 * the reader or the stored answer, whatever the provider: it is the model's notes, not the answer, and
 * may quote the system prompt. Tags split across deltas are followed; text that only looks like the
 * start of the tag is let through once it is not.
 */
export async function* withoutThinking(
  parts: AsyncIterable<AnswerStreamPart>,
): AsyncGenerator<AnswerStreamPart> {
  let state: 'start' | 'thinking' | 'after' | 'answer' = 'start';
  let pending = '';
  for await (const part of parts) {
    if (!isTextDelta(part)) {
      // Held text that never became a tag is answer text, before the part that follows it.
      if (state === 'start' && pending !== '') {
        yield { type: 'text-delta', textDelta: pending };
        state = 'answer';
      }
      // Each step of a multi-step answer may think first.
      if (part.type === 'step-start') state = 'start';
      if (state !== 'thinking') pending = '';
      yield part;
      continue;
    }
    if (state === 'answer') {
      yield part;
      continue;
    }
    if (state === 'after') {
      // The blank lines between the thinking and the answer.
      const text = part.textDelta.trimStart();
      if (text === '') continue;
      state = 'answer';
      yield { type: 'text-delta', textDelta: text };
      continue;
    }
    pending += part.textDelta;
    if (state === 'start') {
      const text = pending.trimStart();
      if (text.length < OPEN.length && OPEN.startsWith(text)) continue;
      if (!text.startsWith(OPEN)) {
        state = 'answer';
        yield { type: 'text-delta', textDelta: pending };
        pending = '';
        continue;
      }
      state = 'thinking';
      pending = text.slice(OPEN.length);
    }
    const end = pending.indexOf(CLOSE);
    if (end === -1) {
      // Only what could be the start of a split closing tag is kept.
      pending = pending.slice(-(CLOSE.length - 1));
      continue;
    }
    const rest = pending.slice(end + CLOSE.length).trimStart();
    pending = '';
    state = rest === '' ? 'after' : 'answer';
    if (rest !== '') yield { type: 'text-delta', textDelta: rest };
  }
  if (state === 'start' && pending !== '') yield { type: 'text-delta', textDelta: pending };
}

function isTextDelta(part: AnswerStreamPart): part is { type: 'text-delta'; textDelta: string } {
  return part.type === 'text-delta';
}
