import { describe, expect, it } from 'vitest';
import { declines } from './answered.ts';
import { isSmallTalkReply, PHRASES, replyLanguage } from './answerer-phrases.ts';
import { composeAnswer, type RetrievedSource } from './builtin-answerer.ts';
import { MAX_SMALL_TALK_WORDS, smallTalk, smallTalkLanguage } from './small-talk.ts';

const SMALL_TALK_REPLIES = PHRASES.english.smallTalk;

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

  it('counts a small-talk reply, in any language, as not answered', () => {
    for (const phrases of Object.values(PHRASES))
      for (const reply of Object.values(phrases.smallTalk)) {
        expect(isSmallTalkReply(reply)).toBe(true);
        expect(declines(reply)).toBe(true);
      }
    expect(isSmallTalkReply(`${SMALL_TALK_REPLIES.thanks} More.`)).toBe(false);
  });

  it.each([
    ['merci beaucoup', 'french', 'thanks'],
    ['Bonjour', 'french', 'greeting'],
    ['hola', 'spanish', 'greeting'],
    ['buenas noches', 'spanish', 'greeting'],
    ['obrigado!', 'portuguese', 'thanks'],
    ['Guten Tag', 'german', 'greeting'],
    ['vielen Dank!', 'german', 'thanks'],
    ['thanks, bye', 'english', 'thanks'],
    ['ciao', 'english', 'greeting'],
    ['谢谢！', 'chinese', 'thanks'],
    ['你好', 'chinese', 'greeting'],
    ['ありがとうございます', 'japanese', 'thanks'],
    ['안녕히 가세요', 'korean', 'goodbye'],
    ['مرحباً', 'arabic', 'greeting'],
    ['السلام عليكم', 'arabic', 'greeting'],
    ['شكراً جزيلاً!', 'arabic', 'thanks'],
    ['שלום', 'hebrew', 'greeting'],
    ['תודה רבה!', 'hebrew', 'thanks'],
  ] as const)('replies to %j in %s', (message, language, kind) => {
    expect(smallTalkLanguage(message)).toBe(language === 'english' ? null : language);
    expect(replyLanguage(message)).toBe(language);
    expect(composeAnswer(message, sources).text).toBe(PHRASES[language].smallTalk[kind]);
  });
});
