import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseQuestions, readEvalSet } from '../search/eval-set.ts';
import { repoRoot } from '../testing/paths.ts';
import { compareReports } from './compare-reports.ts';
import { runEval } from './run-eval.ts';

const SET = path.join(repoRoot, 'src/eval/fixtures/docent-docs');

describe('eval sets with a set.json and unanswerable questions', () => {
  it('reads the docs folder from set.json and accepts empty relevant lists only for off-topic/not-covered', async () => {
    const set = await readEvalSet(SET);
    expect(set.docsDir).toBe(path.join(repoRoot, 'docs'));
    expect(set.tuning).toBe(false);
    const row = (fields: object) => JSON.stringify({ id: 'x', question: 'q', answer: '', ...fields });
    expect(parseQuestions(row({ relevant: [], type: 'not-covered' }))).toHaveLength(1);
    expect(() => parseQuestions(row({ relevant: [] }))).toThrow(/relevant must list pages/);
    expect(() => parseQuestions(row({ relevant: ['a'], type: 'off-topic' }))).toThrow(
      /relevant must list pages/,
    );
  });

  it('scores retrieval on answerable questions only, next to plain BM25, per type, and answers and declines', async () => {
    const report = await runEval(SET, { database: { dialect: 'sqlite' }, answers: true });
    expect(report).toMatchObject({ set: 'docent-docs', questions: 4, unanswerable: 2, tuning: false });
    expect(Object.keys(report.by_type)).toEqual(['concept', 'how-to', 'misspelled', 'vague']);
    expect(report.by_type.vague?.questions).toBe(1);
    expect(report.plain_bm25.questions).toBe(4);
    expect(report['hit@10']).toBeGreaterThan(0);
    // The built-in answerer declines questions about pizza and football on a docs assistant's site.
    expect(report.answers?.declined_unanswerable).toBe(1);
    expect(report.declined_by_type?.['off-topic']).toBe(1);
    expect(report.answers?.refusal_recall).toBe(1);
    // The same questions' retrieval is weak: a real model would be told the docs do not cover them.
    expect(report.answers?.weak_retrieval_unanswerable).toBe(1);

    const changes = compareReports({ ...report, 'hit@1': report['hit@1'] + 0.5, by_type: {} }, report);
    expect(changes).toEqual([
      { key: 'hit@1', before: report['hit@1'] + 0.5, after: report['hit@1'], change: -0.5 },
    ]);
  });
});
