import { describe, expect, it } from 'vitest';
import { borrowedQuestion, previousQuestion, questionQuery } from './retrieval-query.ts';

describe('the retrieval query of a follow-up', () => {
  const previous = 'How do I ingest my docs?';

  it('borrows the previous question when short, or when it refers back to it', () => {
    expect(questionQuery('and on Windows?', previous)).toBe(`${previous}\nand on Windows?`);
    expect(questionQuery('and how do I do that incrementally later?', previous)).toBe(
      `${previous}\nand how do I do that incrementally later?`,
    );
    expect(questionQuery('Can I run it from a cron job every night?', previous)).toBe(
      `${previous}\nCan I run it from a cron job every night?`,
    );
  });

  it('stands alone when it is a question of its own', () => {
    expect(questionQuery('How do I rotate an API key for the widget?', previous)).toBe(
      'How do I rotate an API key for the widget?',
    );
    // Long enough to say what it means by "it" itself.
    const long = 'Is it possible to run the ingestion from a GitHub Actions workflow on every push to main?';
    expect(questionQuery(long, previous)).toBe(long);
    expect(questionQuery('and on Windows?', undefined)).toBe('and on Windows?');
  });

  it('stands alone when it is short but asks something of its own', () => {
    // Found by asking the demo page's widget "How do I rotate an API key?", then "What is Docent?": the
    // second was searched with the first and answered about the demo page's key.
    for (const own of [
      'What is Docent?',
      'How do I change the port?',
      'Where are models stored?',
      "what's the MCP server?",
      'What is the OpenAPI importer?',
    ]) {
      expect(questionQuery(own, 'How do I rotate an API key?')).toBe(own);
    }
  });

  it('still borrows when a short question points back or picks among what was said', () => {
    for (const follow of [
      'What is it?',
      'How do I do that?',
      'What about Docker?',
      'How is the default?',
      'What else is there?',
      'Which is faster?',
      'how should my client retry',
      'What port?',
      'can I use postgres instead?',
      // A bare "the" noun: the limit, options or file of what was just asked.
      'What is the limit?',
      "what's the syntax",
      'What are the options?',
      "Where's the file?",
    ]) {
      expect(questionQuery(follow, previous)).toBe(`${previous}\n${follow}`);
    }
  });
});

describe('the question a follow-up borrows from', () => {
  it('is the previous one exactly when the search query borrows it', () => {
    expect(borrowedQuestion('what happens when I go over it', "what's the rate limit?")).toBe(
      "what's the rate limit?",
    );
    expect(
      borrowedQuestion('How do I rotate an API key for the widget?', 'How do I install?'),
    ).toBeUndefined();
    expect(borrowedQuestion('and on Windows?', undefined)).toBeUndefined();
  });
});

describe('the previous question of a long conversation', () => {
  const query = (questions: string[]) =>
    questionQuery(questions.at(-1) ?? '', previousQuestion(questions.slice(0, -1)));

  it('keeps the subject of a run of follow-ups', () => {
    // The third searched "and on postgres?\nwhat about the second option", without the key.
    expect(query(['How do I rotate an API key?', 'and on postgres?', 'what about the second option'])).toBe(
      'How do I rotate an API key?\nand on postgres?\nwhat about the second option',
    );
    // However long the run: its subject and the last follow-up, not every one of them.
    expect(
      query([
        'How do I rotate an API key?',
        'and on postgres?',
        'and on sqlite?',
        'and on mysql?',
        'and redis?',
      ]),
    ).toBe('How do I rotate an API key?\nand on mysql?\nand redis?');
  });

  it('borrows a question, not a thank-you, a greeting or an empty message', () => {
    expect(query(['How do I rotate an API key?', 'ok thanks', 'and the old key?'])).toBe(
      'How do I rotate an API key?\nand the old key?',
    );
    expect(query(['How do I rotate an API key?', '', 'hello', 'and on Windows?'])).toBe(
      'How do I rotate an API key?\nand on Windows?',
    );
    expect(previousQuestion(['thanks!', '  '])).toBeUndefined();
  });

  it('drops the old subject once the reader asks a question of their own', () => {
    expect(
      query(['How do I rotate an API key?', 'and on postgres?', 'How are invoices sent?', 'and when?']),
    ).toBe('How are invoices sent?\nand when?');
    expect(query(['How do I rotate an API key?', 'and on postgres?', 'How are invoices sent?'])).toBe(
      'How are invoices sent?',
    );
  });
});
