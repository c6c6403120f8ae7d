import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EvalSetError, parseQuestions, readEvalSet } from './eval-set.ts';

const row = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ id: 'q1', question: 'How?', answer: 'Like so.', relevant: ['guides/setup'], ...extra });

describe('eval set parsing', () => {
  it('parses rows, skips blank lines, keeps filters', () => {
    const qs = parseQuestions(
      `${row()}\n\n${row({ id: 'q2', filter: { version: 'v2', language: 'es' } })}\n`,
    );
    expect(qs.map((q) => q.id)).toEqual(['q1', 'q2']);
    expect(qs[1]?.filter).toEqual({ version: 'v2', language: 'es' });
  });

  it('keeps the previous question of a follow-up, and refuses an empty one', () => {
    const [q] = parseQuestions(row({ previous: 'How do I install Docent?', question: 'and on Docker?' }));
    expect(q?.previous).toBe('How do I install Docent?');
    expect(() => parseQuestions(row({ previous: '' }), 'q.jsonl')).toThrow(/^q\.jsonl:1: previous/);
  });

  it('reports invalid JSON with its line number', () => {
    expect(() => parseQuestions(`${row()}\n{not json`, 'q.jsonl')).toThrow(/^q\.jsonl:2: invalid JSON/);
  });

  it('reports schema errors with the line number and the field', () => {
    const bad = `${row()}\n${row({ id: 'q2' })}\n${row({ id: 'q3', relevant: [] })}`;
    expect(() => parseQuestions(bad, 'q.jsonl')).toThrow(EvalSetError);
    expect(() => parseQuestions(bad, 'q.jsonl')).toThrow(/q\.jsonl:3: relevant/);
    expect(() => parseQuestions(row({ question: 42 }))).toThrow(/:1: question/);
    expect(() => parseQuestions(row({ filter: { versions: 'v1' } }))).toThrow(/:1: filter/);
  });

  it('rejects duplicate ids', () => {
    expect(() => parseQuestions(`${row()}\n${row()}`)).toThrow(/:2: duplicate id "q1"/);
  });

  it('reads a set folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'eval-set-'));
    await writeFile(path.join(dir, 'questions.jsonl'), `${row()}\n`);
    const set = await readEvalSet(dir);
    expect(set.name).toBe(path.basename(dir));
    expect(set.docsDir).toBe(path.join(dir, 'docs'));
    expect(set.questions).toHaveLength(1);
  });

  it('refuses a set with no questions and a set.json that is not JSON, naming the file', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'docent-evalset-'));
    await writeFile(path.join(empty, 'questions.jsonl'), '\n\n');
    await expect(readEvalSet(empty)).rejects.toThrow(
      new EvalSetError(path.join(empty, 'questions.jsonl'), 1, 'no questions'),
    );
    const broken = await mkdtemp(path.join(tmpdir(), 'docent-evalset-'));
    await writeFile(path.join(broken, 'questions.jsonl'), `${row()}\n`);
    await writeFile(path.join(broken, 'set.json'), '{');
    const error = await readEvalSet(broken).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EvalSetError);
    expect((error as Error).message).toMatch(/set\.json:1: invalid JSON \(/);
  });
});
