import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** Questions the docs do not answer: `relevant` is empty, and a good answerer declines them. */
export const UNANSWERABLE_TYPES = ['off-topic', 'not-covered'] as const;

const isUnanswerable = (type: string | undefined): boolean =>
  (UNANSWERABLE_TYPES as readonly (string | undefined)[]).includes(type);

/**
 * One labelled question of an eval set (`questions.jsonl`, format in `../shared/eval/README.md`, plus
 * Docent's `type`, see eval/README.md).
 */
export const evalQuestionSchema = z
  .object({
    id: z.string().min(1),
    question: z.string().min(1),
    /**
     * The question asked just before, in the same conversation: this one is a follow-up ("and on
     * Windows?"), searched and answered as the assistant endpoints search and answer a follow-up.
     */
    previous: z.string().min(1).optional(),
    answer: z.string(),
    relevant: z.array(z.string().min(1)),
    /** How the question is asked (`vague`, `error-message`…) or `off-topic`/`not-covered`. */
    type: z.string().min(1).max(40).optional(),
    filter: z
      .object({
        version: z.string().min(1).optional(),
        language: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
  })
  .refine((q) => (q.relevant.length === 0) === isUnanswerable(q.type), {
    message: `relevant must list pages, and be empty exactly when type is ${UNANSWERABLE_TYPES.join(' or ')}`,
    path: ['relevant'],
  });

export type EvalQuestion = z.infer<typeof evalQuestionSchema>;

export interface EvalSet {
  name: string;
  dir: string;
  /** The docs folder to ingest. */
  docsDir: string;
  /** Whether the set was used to tune ranking or the answerer (its figures flatter them). */
  tuning: boolean | null;
  questions: EvalQuestion[];
}

/** `set.json` of a set whose docs live elsewhere (a shared corpus), path relative to the set. */
const setConfigSchema = z.object({
  docs: z.string().min(1),
  description: z.string().optional(),
  tuning: z.boolean().optional(),
});

export const isUnanswerableQuestion = (question: EvalQuestion): boolean => isUnanswerable(question.type);

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

/**
 * Reads an eval set folder: `questions.jsonl`, and `docs/` or a `set.json` naming the docs folder
 * (`{"docs": "../../../shared/corpora/crewai-docs", "tuning": false}`).
 */
export const readEvalSet = async (dir: string): Promise<EvalSet> => {
  const file = path.join(dir, 'questions.jsonl');
  const text = await readFile(file, 'utf8');
  const configFile = path.join(dir, 'set.json');
  let docsDir = path.join(dir, 'docs');
  let tuning: boolean | null = null;
  if (existsSync(configFile)) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(configFile, 'utf8'));
    } catch (error) {
      throw new EvalSetError(configFile, 1, `invalid JSON (${(error as Error).message})`);
    }
    const parsed = setConfigSchema.safeParse(json);
    if (!parsed.success)
      throw new EvalSetError(configFile, 1, parsed.error.issues.map((i) => i.message).join('; '));
    docsDir = path.resolve(dir, parsed.data.docs);
    tuning = parsed.data.tuning ?? null;
    // The shared corpora live beside the repository (`../shared`), not in it: say which folder is missing.
    if (!existsSync(docsDir))
      throw new EvalSetError(
        configFile,
        1,
        `its docs folder ${parsed.data.docs} (${docsDir}) does not exist`,
      );
  }
  const questions = parseQuestions(text, file);
  // Scores of no questions are zeros and NaN latencies that read as a result.
  if (questions.length === 0) throw new EvalSetError(file, 1, 'no questions');
  return { name: path.basename(path.resolve(dir)), dir, docsDir, tuning, questions };
};
