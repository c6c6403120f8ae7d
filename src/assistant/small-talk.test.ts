import { describe, expect, it } from 'vitest';
import { declines } from './answered.ts';
import { composeAnswer, type RetrievedSource } from './builtin-answerer.ts';
import { isSmallTalkReply, MAX_SMALL_TALK_WORDS, SMALL_TALK_REPLIES, smallTalk } from './small-talk.ts';

describe('smallTalk', () => {
  it.each([
    ['hi', 'greeting'],
    ['hi there', 'greeting'],
    ['Hello!! 👋', 'greeting'],
    ['hey, how are you?', 'greeting'],
    ['good morning everyone', 'greeting'],
    ['Bonjour', 'greeting'],
    ['thanks!', 'thanks'],
    ['thank you so much', 'thanks'],
    ['merci beaucoup', 'thanks'],
    ['ok thanks, bye', 'thanks'],
    ['bye', 'goodbye'],
    ['see you later, goodbye', 'goodbye'],
    ['Guten Tag', 'greeting'],
    ['vielen Dank!', 'thanks'],
    ['good night', 'goodbye'],
  ])('%j is %s', (message, kind) => {
    expect(smallTalk(message)).toBe(kind);
  });

  it.each([
    'hi, how do I install the CLI?',
    'hello world example',
    'thank you page redirect',
    'how are you',
    'ok',
    '',
    '???',
    'hi_res strategy',
    // Half of a two-word greeting is an everyday docs word on its own.
    'tag',
    'night mode',
    'morning',
  ])('%j is a question (or nothing), not small talk', (message) => {
    expect(smallTalk(message)).toBeNull();
  });

  it('stops at MAX_SMALL_TALK_WORDS words', () => {
    expect(smallTalk(Array(MAX_SMALL_TALK_WORDS).fill('hi').join(' '))).toBe('greeting');
    expect(
      smallTalk(
        Array(MAX_SMALL_TALK_WORDS + 1)
          .fill('hi')
          .join(' '),
      ),
    ).toBeNull();
  });
});

describe('the built-in answerer and small talk', () => {
  // A chunk whose words a greeting matches: `hi_res` is split into `hi` and `res` by the answerer's words.
  const sources: RetrievedSource[] = [
    {
      id: '1',
      pageTitle: 'Models',
      headings: ['Partitioning'],
      url: 'https://docs.example.com/models',
      text: 'To use any model with the partition, set the strategy to hi_res as shown above. There you go.',
      score: 9,
      coverage: 1,
    },
  ];

  it('replies to a greeting with the fixed line instead of quoting the docs', () => {
    const answer = composeAnswer('hi there', sources);
    expect(answer).toEqual({ text: SMALL_TALK_REPLIES.greeting, citedIds: [], covered: false });
  });

  it('still answers a question that starts with a greeting', () => {
    const answer = composeAnswer('hi, which strategy uses the model for partition?', sources);
    expect(answer.covered).toBe(true);
    expect(answer.citedIds).toEqual(['1']);
  });

  it('counts a small-talk reply as not answered', () => {
    for (const reply of Object.values(SMALL_TALK_REPLIES)) {
      expect(isSmallTalkReply(reply)).toBe(true);
      expect(declines(reply)).toBe(true);
    }
    expect(isSmallTalkReply(`${SMALL_TALK_REPLIES.thanks} More.`)).toBe(false);
  });
});
