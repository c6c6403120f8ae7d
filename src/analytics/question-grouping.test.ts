import { describe, expect, it } from 'vitest';
import { GroupIndex, MAX_SIGNATURE_TERMS, parseSignature, questionTerms } from './question-grouping.ts';

/** Groups `questions` in order on a fresh index; each question's group as the index of its group's first question. */
function partition(questions: readonly string[], index = new GroupIndex()): number[] {
  let next = 0;
  const first = new Map<string, number>();
  return questions.map((question, i) => {
    const groupId = index.assign(questionTerms(question), () => `g${next++}`)?.groupId;
    if (groupId === undefined) return -1;
    if (!first.has(groupId)) first.set(groupId, i);
    return first.get(groupId) ?? -1;
  });
}

const rotate = [
  'How do I rotate my API key?',
  'how to rotate api keys',
  'rotate key',
  'rotating the api key?',
  'How can I rotate an API key without downtime',
  'rotaet my api key', // a typo
];
const unrelated = [
  'Can I use PostgreSQL instead of SQLite?',
  'dark mode for the widget',
  'what does error 429 mean',
  'How much does Docent cost?',
];

describe('question grouping', () => {
  it('puts obvious paraphrases of one question in one group', () => {
    const groups = partition(rotate);
    expect(new Set(groups)).toEqual(new Set([0]));
  });

  it('reads a short form as its long form ("repo", "repository")', () => {
    expect(questionTerms('connect my git repo')).toEqual(questionTerms('connect my git repository'));
    expect(new Set(partition(['which env var sets the port', 'environment variable for the port']))).toEqual(
      new Set([0]),
    );
  });

  it("splits a word into two of its groups' words ('ratelimit' after 'rate limit')", () => {
    expect(new Set(partition(['rate limit headers', 'ratelimit headers']))).toEqual(new Set([0]));
  });

  it('keeps unrelated questions apart, also from an existing group', () => {
    const groups = partition([...rotate.slice(0, 3), ...unrelated]);
    const unrelatedGroups = groups.slice(3);
    expect(new Set(unrelatedGroups).size).toBe(unrelated.length);
    for (const g of unrelatedGroups) expect(g).not.toBe(groups[0]);
  });

  it('is deterministic: the same questions in the same order give the same groups', () => {
    const questions = [
      ...rotate,
      ...unrelated,
      'postgres database url',
      'widget theme colors',
      'rotate keys',
    ];
    expect(partition(questions)).toEqual(partition(questions));
  });

  it('leaves a question without content words ungrouped', () => {
    expect(questionTerms('how do I do it?')).toEqual([]);
    expect(new GroupIndex().assign([], () => 'g')).toBeNull();
  });

  it('reads its stored profile back: a group loaded from its signature takes the same questions', () => {
    const index = new GroupIndex();
    const assigned = index.assign(questionTerms('How do I rotate my API key?'), () => 'g1');
    expect(assigned?.created).toBe(true);
    const stored = JSON.parse(JSON.stringify(assigned?.signature));
    const reloaded = new GroupIndex();
    reloaded.load('g1', parseSignature(JSON.stringify(stored)));
    expect(reloaded.assign(questionTerms('rotate api keys'), () => 'g2')?.groupId).toBe('g1');
  });

  it('keeps a group profile bounded however many different questions join it', () => {
    const index = new GroupIndex();
    let signature = index.assign(questionTerms('rotate api key'), () => 'g')?.signature;
    for (let i = 0; i < 200; i++)
      signature = index.assign(questionTerms(`rotate api key word${i} extra${i}`), () => `n${i}`)?.signature;
    expect(signature?.t.length).toBeLessThanOrEqual(MAX_SIGNATURE_TERMS);
  });

  it('forgets the least recently used groups past its limit', () => {
    const index = new GroupIndex(2);
    let n = 0;
    for (const q of ['postgres database', 'widget theme', 'rate limit errors'])
      index.assign(questionTerms(q), () => `g${n++}`);
    expect(index.size).toBe(2);
    // The first group is gone: the same question starts a new one.
    expect(index.assign(questionTerms('postgres database'), () => 'again')?.created).toBe(true);
  });
});
