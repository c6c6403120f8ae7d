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

/** Highest temperature any provider accepts (OpenAI's range is 0–2; others' is narrower). */
export const MAX_TEMPERATURE = 2;
/** Longest answer a site may ask for, in tokens: far beyond any docs answer, within every provider's cap. */
export const MAX_OUTPUT_TOKENS = 32_000;

/**
 * Call options for the site's model. Unset ones are the provider's defaults. A provider that does not
 * support one (a temperature on some reasoning models) reports a warning and ignores it, or fails the
 * call; the owner sees the failure in the console's conversations.
 */
export const siteModelOptionsSchema = z
  .object({
    // The messages read after the option's name in every caller ("--temperature: must be at most 2",
    // "Temperature: …"); Zod's own say "Number must be less than or equal to 2", or "received nan".
    temperature: z
      .number({ invalid_type_error: 'must be a number' })
      .min(0, 'must be at least 0')
      .max(MAX_TEMPERATURE, `must be at most ${MAX_TEMPERATURE}`)
      .optional(),
    maxOutputTokens: z
      .number({ invalid_type_error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_OUTPUT_TOKENS, `must be at most ${MAX_OUTPUT_TOKENS}`)
      .optional(),
    /** Turned into each provider's own setting (provider-models.ts). */
    reasoningEffort: z
      .enum(['low', 'medium', 'high'], { errorMap: () => ({ message: 'must be low, medium or high' }) })
      .optional(),
  })
  .strict();

export type SiteModelOptions = z.infer<typeof siteModelOptionsSchema>;

export const siteModelSettingsSchema = z
  .object({
    model: siteModelSchema.nullable().optional(),
    instructions: siteInstructionsSchema.nullable().optional(),
    starterQuestions: starterQuestionsSchema.nullable().optional(),
    modelOptions: siteModelOptionsSchema
      // No options is no options: stored as null, like cleared ones.
      .transform((options) => (Object.keys(options).length === 0 ? null : options))
      .nullable()
      .optional(),
  })
  .strict();

export interface SiteModelSettings {
  model: string | null;
  instructions: string | null;
  starterQuestions: string[] | null;
  modelOptions: SiteModelOptions | null;
}

export type SiteModelSettingsPatch = Partial<SiteModelSettings>;

export async function updateSiteModelSettings(
  storage: Storage,
  siteId: string,
  patch: SiteModelSettingsPatch,
): Promise<void> {
  const set: {
    model?: string | null;
    instructions?: string | null;
    starter_questions?: string | null;
    model_options?: string | null;
  } = {};
  if (patch.model !== undefined) set.model = patch.model;
  if (patch.modelOptions !== undefined)
    set.model_options = patch.modelOptions === null ? null : JSON.stringify(patch.modelOptions);
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
    .select(['model', 'instructions', 'starter_questions', 'model_options'])
    .where('id', '=', siteId)
    .executeTakeFirst();
  return (
    row && {
      model: row.model ?? null,
      instructions: row.instructions ?? null,
      starterQuestions: storedStarterQuestions(row.starter_questions),
      modelOptions: storedModelOptions(row.model_options),
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

/**
 * A site's stored model options; null when it has none. A stored value that does not validate (written
 * by hand) reads as none rather than failing every answer.
 */
export function storedModelOptions(stored: string | null | undefined): SiteModelOptions | null {
  if (stored === null || stored === undefined) return null;
  try {
    const parsed = siteModelOptionsSchema.safeParse(JSON.parse(stored));
    if (parsed.success && Object.keys(parsed.data).length > 0) return parsed.data;
  } catch {
    // Falls through: not JSON.
  }
  return null;
}
