import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalSetDir } from '../testing/paths.ts';
import { testPostgresUrl } from '../testing/services.ts';
import { versionedDocs } from '../testing/versioned-docs.ts';
import { tokenF1 } from './answer-metrics.ts';
import { type EvalQuestionRow, type EvalReport, runEval } from './run-eval.ts';

/** The plain-BM25 rows of ../shared/eval/README.md: the floor Docent's search must beat on every set. */
const plainBm25: Record<string, { hit5: number; mrr10: number }> = {
  'claude-docs': { hit5: 0.91, mrr10: 0.819 },
  'tv-manual': { hit5: 0.849, mrr10: 0.7 },
};

const quality = (r: EvalReport) => [r.questions, r['hit@1'], r['hit@5'], r['hit@10'], r['mrr@10']];

describe.each(Object.keys(plainBm25))('retrieval quality on %s', (set) => {
  it('beats plain BM25 and ranks identically on SQLite and PostgreSQL', async () => {
    const floor = plainBm25[set];
    if (!floor) throw new Error(set);
    const sqlite = await runEval(evalSetDir(set), { database: { dialect: 'sqlite' } });
    const postgres = await runEval(evalSetDir(set), {
      database: { dialect: 'postgres', serverUrl: testPostgresUrl() },
    });
    for (const report of [sqlite, postgres]) {
      expect(report['hit@5']).toBeGreaterThan(floor.hit5);
      expect(report['mrr@10']).toBeGreaterThan(floor.mrr10);
      // Our plain BM25 (plain-bm25.ts), the floor for sets the README does not list, stays near its figures.
      expect(Math.abs(report.plain_bm25['hit@5'] - floor.hit5)).toBeLessThanOrEqual(0.03);
      expect(Math.abs(report.plain_bm25['mrr@10'] - floor.mrr10)).toBeLessThanOrEqual(0.03);
    }
    expect(postgres.plain_bm25).toEqual(sqlite.plain_bm25);
    expect(quality(postgres)).toEqual(quality(sqlite));
  });
});

describe('tokenF1', () => {
  it('scores bag-of-token overlap', () => {
    expect(tokenF1('the cat sat', 'the cat sat')).toBe(1);
    expect(tokenF1('cat', 'dog')).toBe(0);
    // 2 shared of 4 answer tokens and 2 reference tokens: P 0.5, R 1 → F1 2/3.
    expect(tokenF1('The cat, the hat!', 'cat hat')).toBeCloseTo(2 / 3);
    expect(tokenF1('a a a', 'a')).toBeCloseTo(0.5);
  });
});

describe('an eval set whose question names a version its docs lack', () => {
  it('is refused before any question runs, naming the question', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-eval-versions-'));
    const docs = versionedDocs();
    try {
      fs.writeFileSync(path.join(dir, 'set.json'), JSON.stringify({ docs: path.relative(dir, docs) }));
      const row = (id: string, version: string) =>
        JSON.stringify({
          id,
          question: 'install widget',
          answer: 'a',
          relevant: ['v1/setup'],
          filter: { version },
        });
      fs.writeFileSync(path.join(dir, 'questions.jsonl'), `${row('q1', 'V1')}\n${row('q2', 'v7')}\n`);
      await expect(runEval(dir, { database: { dialect: 'sqlite' } })).rejects.toThrow(
        'question q2: These docs have no version "v7"; their versions are v1, v2',
      );
    } finally {
      for (const d of [dir, docs]) fs.rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('an eval set with a language filter', () => {
  it("reports those questions with the filter and without it (the question's own language)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-eval-languages-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(dir, 'docs', file)), { recursive: true });
        fs.writeFileSync(path.join(dir, 'docs', file), text);
      };
      const group = (pages: string[]) => [{ group: 'Guides', pages }];
      write(
        'docs.json',
        JSON.stringify({
          name: 'Bilingual',
          navigation: {
            languages: [
              { language: 'en', groups: group(['en/install', 'en/tokens']) },
              { language: 'es', groups: group(['es/install', 'es/tokens']) },
            ],
          },
        }),
      );
      write(
        'en/install.mdx',
        '---\ntitle: Install the widget\n---\n\nRun `acme install` to install the widget.\n',
      );
      write('en/tokens.mdx', '---\ntitle: Tokens\n---\n\nA token comes from `acme tokens create`.\n');
      write(
        'es/tokens.mdx',
        '---\ntitle: Tokens\n---\n\nUn token sale de `acme tokens create`. El comando `acme tokens create` imprime el token.\n',
      );
      const rows = [
        {
          id: 'q1',
          question: 'What does acme tokens create do?',
          relevant: ['en/tokens'],
          filter: { language: 'en' },
        },
        {
          id: 'q2',
          question: '¿Qué hace acme tokens create?',
          relevant: ['es/tokens'],
          filter: { language: 'es' },
        },
      ];
      fs.writeFileSync(
        path.join(dir, 'questions.jsonl'),
        rows.map((r) => JSON.stringify({ ...r, answer: 'a' })).join('\n'),
      );
      const report = await runEval(dir, { database: { dialect: 'sqlite' } });
      // Both token pages hold the question's words, the Spanish one more often: without a filter, only
      // the question's language tells them apart.
      expect(report.language_filter?.with).toMatchObject({ questions: 2, 'hit@1': 1 });
      expect(report.language_filter?.without).toMatchObject({ questions: 2, 'hit@1': 1 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("an eval run's rows, one per question", () => {
  it('say where each question found its page, under BM25 too, and what the answer cited', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-eval-rows-'));
    try {
      fs.mkdirSync(path.join(dir, 'docs'));
      fs.writeFileSync(
        path.join(dir, 'docs', 'install.md'),
        '# Install the widget\n\nRun `acme install` to install the widget on your site. The install takes a minute.\n',
      );
      fs.writeFileSync(
        path.join(dir, 'docs', 'tokens.md'),
        '# Tokens\n\nA token comes from `acme tokens create`. Tokens expire after thirty days.\n',
      );
      const rows = [
        {
          id: 'q1',
          question: 'How do I install the widget?',
          relevant: ['install'],
          answer: 'Run acme install.',
        },
        { id: 'q2', question: 'when do tokens expire', relevant: ['tokens'], answer: 'After thirty days.' },
        { id: 'q3', question: 'best pizza in naples', relevant: [], answer: '', type: 'off-topic' },
      ];
      fs.writeFileSync(path.join(dir, 'questions.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n'));
      const seen: EvalQuestionRow[] = [];
      const report = await runEval(dir, {
        database: { dialect: 'sqlite' },
        answers: true,
        onQuestion: (row) => seen.push(row),
      });
      expect(seen.map((r) => r.id)).toEqual(['q1', 'q2', 'q3']);
      expect(seen[0]).toMatchObject({ type: 'untyped', rank: 1, bm25_rank: 1, relevant: ['install'] });
      expect(seen[0]?.pages[0]).toBe('install');
      expect(seen[0]?.answer).toMatchObject({ declined: false, cited: ['install'] });
      expect(seen[1]?.answer?.f1).toBeGreaterThan(0);
      expect(seen[2]).toMatchObject({ type: 'off-topic', rank: null, bm25_rank: null });
      expect(seen[2]?.answer).toMatchObject({ declined: true, cited: [], f1: null });
      // The rows add up to the report's figures.
      const cited = seen.flatMap((r) => (r.relevant.length > 0 ? (r.answer?.cited ?? []) : []));
      const relevantCited = seen.flatMap((r) =>
        (r.answer?.cited ?? []).filter((p) => r.relevant.includes(p)),
      );
      expect(report.answers?.citation_precision).toBe(relevantCited.length / cited.length);
      expect(report['hit@1']).toBe(seen.filter((r) => r.rank === 1).length / 2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
