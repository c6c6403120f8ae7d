import { z } from 'zod';
import type { Storage } from '../../storage/database.ts';
import { formatModelSpec, ModelSpecError, parseModelSpec } from './model-spec.ts';

/**
 * A site's model settings, as the admin API and the CLI change them. One schema for both, so they accept
 * the same values. `null` clears a setting (back to the server's default); an absent key leaves it alone.
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

export const siteModelSettingsSchema = z
  .object({
    model: siteModelSchema.nullable().optional(),
    instructions: siteInstructionsSchema.nullable().optional(),
  })
  .strict();

export interface SiteModelSettings {
  model: string | null;
  instructions: string | null;
}

export type SiteModelSettingsPatch = Partial<SiteModelSettings>;

export async function updateSiteModelSettings(
  storage: Storage,
  siteId: string,
  patch: SiteModelSettingsPatch,
): Promise<void> {
  const set: SiteModelSettingsPatch = {};
  if (patch.model !== undefined) set.model = patch.model;
  if (patch.instructions !== undefined) set.instructions = patch.instructions;
  if (Object.keys(set).length === 0) return;
  await storage.db.updateTable('sites').set(set).where('id', '=', siteId).execute();
}

export async function getSiteModelSettings(
  storage: Storage,
  siteId: string,
): Promise<SiteModelSettings | undefined> {
  const row = await storage.db
    .selectFrom('sites')
    .select(['model', 'instructions'])
    .where('id', '=', siteId)
    .executeTakeFirst();
  return row && { model: row.model ?? null, instructions: row.instructions ?? null };
}
