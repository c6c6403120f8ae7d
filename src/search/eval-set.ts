import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** One labelled question of an eval set (`questions.jsonl`, format in `../shared/eval/README.md`). */
export const evalQuestionSchema = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  answer: z.string(),
  relevant: z.array(z.string().min(1)).min(1),
  filter: z
    .object({
      version: z.string().min(1).optional(),
      language: z.string().min(1).optional(),
    })
    .strict()
    .optional(),
});

export type EvalQuestion = z.infer<typeof evalQuestionSchema>;

export interface EvalSet {
  name: string;
  dir: string;
  /** The docs folder to ingest. */
  docsDir: string;
  questions: EvalQuestion[];
}

export class EvalSetError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
    this.name = 'EvalSetError';
  }
}

/** Parses `questions.jsonl` text; blank lines are skipped, any bad row throws with its line number. */
export const parseQuestions = (text: string, file = 'questions.jsonl'): EvalQuestion[] => {
  const questions: EvalQuestion[] = [];
  const ids = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      throw new EvalSetError(file, line, `invalid JSON (${(error as Error).message})`);
    }
    const parsed = evalQuestionSchema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || '(row)'}: ${issue.message}`,
      );
      throw new EvalSetError(file, line, issues.join('; '));
    }
    if (ids.has(parsed.data.id)) throw new EvalSetError(file, line, `duplicate id "${parsed.data.id}"`);
    ids.add(parsed.data.id);
    questions.push(parsed.data);
  });
  return questions;
};

/** Reads an eval set folder: `docs/` plus `questions.jsonl`. */
export const readEvalSet = async (dir: string): Promise<EvalSet> => {
  const file = path.join(dir, 'questions.jsonl');
  const text = await readFile(file, 'utf8');
  return {
    name: path.basename(path.resolve(dir)),
    dir,
    docsDir: path.join(dir, 'docs'),
    questions: parseQuestions(text, file),
  };
};
