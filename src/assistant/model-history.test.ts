import { describe, expect, it } from 'vitest';
import { MAX_HISTORY_CHARS, MAX_HISTORY_MESSAGES, modelHistory } from './model-history.ts';
import type { Turn } from './start-answer.ts';

const q = (text: string): Turn => ({ role: 'user', text });
const a = (text: string): Turn => ({ role: 'assistant', text });
const pairs = (count: number, answerChars = 10): Turn[] =>
  Array.from({ length: count }, (_, i) => [
    q(`Question ${i}?`),
    a(`Answer ${i}.`.padEnd(answerChars, '.')),
  ]).flat();

describe('the conversation a model is given', () => {
  it('is the whole of a short conversation', () => {
    const turns = [...pairs(3), q('And on Windows?')];
    expect(modelHistory(turns)).toEqual(turns);
  });

  it('keeps the latest MAX_HISTORY_MESSAGES, the question included, from a question on', () => {
    const history = modelHistory([...pairs(120), q('Last?')]);
    expect(history.length).toBeLessThanOrEqual(MAX_HISTORY_MESSAGES);
    expect(history[0]).toEqual(q('Question 101?'));
    expect(history.at(-2)).toEqual(a('Answer 119.'));
    expect(history.at(-1)).toEqual(q('Last?'));
  });

  it('never opens with an answer when the turns before the question are odd in number', () => {
    // A regenerate deep in a stored thread answers its last question again: the thread up to it holds
    // 2n - 1 messages, and its latest 40 opened with an answer.
    const regenerated = [...pairs(30), q('Question 30?')];
    const history = modelHistory(regenerated);
    expect(history[0]?.role).toBe('user');
    expect(history.at(-1)).toEqual(q('Question 30?'));
    // Nor with a follow-up sent while the previous answer is still being written (not stored yet).
    const inFlight = modelHistory([...pairs(30), q('Unanswered yet?'), q('And this?')]);
    expect(inFlight[0]?.role).toBe('user');
  });

  it('bounds the conversation before the question by MAX_HISTORY_CHARS, dropping the oldest first', () => {
    // 20 questions of 63,000 characters: 1.3 million characters a follow-up, whatever the count.
    const long = Array.from({ length: 20 }, (_, i) => [q(`Q${i} ${'x'.repeat(63_000)}`), a(`A${i}`)]).flat();
    const question = q(`Last ${'y'.repeat(63_000)}`);
    const history = modelHistory([...long, question]);
    const before = history.slice(0, -1);
    expect(before.reduce((sum, turn) => sum + turn.text.length, 0)).toBeLessThanOrEqual(MAX_HISTORY_CHARS);
    // The question is kept whole, and the newest question and answer before it.
    expect(history.at(-1)).toEqual(question);
    expect(before.map((t) => t.text.slice(0, 3))).toEqual(['Q19', 'A19']);
  });

  it('drops an answer whose question did not fit rather than open with it', () => {
    const turns = [q('x'.repeat(MAX_HISTORY_CHARS)), a('Short answer.'), q('And then?')];
    expect(modelHistory(turns)).toEqual([q('And then?')]);
  });

  it('gives the question alone after an answer longer than MAX_HISTORY_CHARS', () => {
    const turns = [q('How do I rotate keys?'), a('x'.repeat(MAX_HISTORY_CHARS + 1)), q('And then?')];
    expect(modelHistory(turns)).toEqual([q('And then?')]);
  });

  it('keeps many long answers only as far as they fit', () => {
    const history = modelHistory([...pairs(20, 10_000), q('Next?')]);
    const before = history.slice(0, -1);
    expect(before.reduce((sum, turn) => sum + turn.text.length, 0)).toBeLessThanOrEqual(MAX_HISTORY_CHARS);
    expect(before[0]?.role).toBe('user');
    expect(before.at(-1)?.text.startsWith('Answer 19.')).toBe(true);
  });

  it('leaves out empty turns, which Anthropic refuses, but keeps the question', () => {
    const turns = [
      q(''),
      a('Ask me something.'),
      q('How do I rotate keys?'),
      a(''),
      q('   '),
      q('And then?'),
    ];
    expect(modelHistory(turns)).toEqual([q('How do I rotate keys?'), q('And then?')]);
    expect(modelHistory([q('')])).toEqual([q('')]);
  });
});
