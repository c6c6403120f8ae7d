import { z } from 'zod';
import type { Storage } from '../../storage/database.ts';
import { formatModelSpec, ModelSpecError, parseModelSpec } from './model-spec.ts';

/**
 * A site's model settings (and the widget's starter questions), as the admin API and the CLI change
 * them. One schema for both, so they accept the same values. `null` clears a setting (back to the
 * server's default); an absent key leaves it alone.
 */

/** Room for a page of guidance (tone, product names, what to link to) without inflating every prompt. */
export const MAX_INSTRUCTIONS_CHARS = 4_000;

export const siteModelSchema = z.string().transform((value, ctx) => {
  try {
    return formatModelSpec(parseModelSpec(value));
  } catch (error) {
    if (!(error instanceof ModelSpecError)) throw error;
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: error.message });
    return z.NEVER;
  }
});

export const siteInstructionsSchema = z
  .string()
  .max(MAX_INSTRUCTIONS_CHARS, `must be at most ${MAX_INSTRUCTIONS_CHARS} characters`)
  // Whitespace-only instructions are no instructions.
  .transform((value) => (value.trim() === '' ? null : value.trim()));

/** Questions the widget offers on an empty panel: a handful of buttons, not a FAQ. */
export const MAX_STARTER_QUESTIONS = 6;
/** Characters of one starter question: one line on a button. */
export const MAX_STARTER_QUESTION_CHARS = 200;

export const starterQuestionSchema = z
  .string()
  .transform((value) => value.trim())
  .pipe(
    z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_STARTER_QUESTION_CHARS, `must be at most ${MAX_STARTER_QUESTION_CHARS} characters`),
  );

/** An empty list is no list: stored as null, like a cleared one. */
export const starterQuestionsSchema = z
  .array(starterQuestionSchema)
  .max(MAX_STARTER_QUESTIONS, `at most ${MAX_STARTER_QUESTIONS} starter questions`)
  .transform((questions) => (questions.length === 0 ? null : questions));

export const siteModelSettingsSchema = z
  .object({
    model: siteModelSchema.nullable().optional(),
    instructions: siteInstructionsSchema.nullable().optional(),
    starterQuestions: starterQuestionsSchema.nullable().optional(),
  })
  .strict();

export interface SiteModelSettings {
  model: string | null;
  instructions: string | null;
  starterQuestions: string[] | null;
}

export type SiteModelSettingsPatch = Partial<SiteModelSettings>;

export async function updateSiteModelSettings(
  storage: Storage,
  siteId: string,
  patch: SiteModelSettingsPatch,
): Promise<void> {
  const set: { model?: string | null; instructions?: string | null; starter_questions?: string | null } = {};
  if (patch.model !== undefined) set.model = patch.model;
  if (patch.instructions !== undefined) set.instructions = patch.instructions;
  if (patch.starterQuestions !== undefined)
    set.starter_questions =
      patch.starterQuestions === null || patch.starterQuestions.length === 0
        ? null
        : JSON.stringify(patch.starterQuestions);
  if (Object.keys(set).length === 0) return;
  await storage.db.updateTable('sites').set(set).where('id', '=', siteId).execute();
}

export async function getSiteModelSettings(
  storage: Storage,
  siteId: string,
): Promise<SiteModelSettings | undefined> {
  const row = await storage.db
    .selectFrom('sites')
    .select(['model', 'instructions', 'starter_questions'])
    .where('id', '=', siteId)
    .executeTakeFirst();
  return (
    row && {
      model: row.model ?? null,
      instructions: row.instructions ?? null,
      starterQuestions: storedStarterQuestions(row.starter_questions),
    }
  );
}

/**
 * A site's stored starter questions; null when it has none. A stored value that is not a list of
 * strings (written by hand) reads as none rather than failing every request that shows them.
 */
export function storedStarterQuestions(stored: string | null | undefined): string[] | null {
  if (stored === null || stored === undefined) return null;
  try {
    const value: unknown = JSON.parse(stored);
    if (Array.isArray(value) && value.length > 0 && value.every((q) => typeof q === 'string')) return value;
  } catch {
    // Falls through: not JSON.
  }
  return null;
}
