import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../tenancy/organizations.ts';
import { createSite, getSiteByDomain } from '../../tenancy/sites.ts';
import { createTestDatabase, dialects } from '../../testing/databases.ts';
import {
  getSiteModelSettings,
  siteModelSettingsSchema,
  storedModelOptions,
  updateSiteModelSettings,
} from './site-model-settings.ts';

describe.each(dialects)('site model settings on %s', (dialect) => {
  it('are null for a new site, and set, kept and cleared independently', async () => {
    const db = await createTestDatabase(dialect);
    try {
      const org = await createOrganization(db.storage, { name: 'Acme' });
      const site = await createSite(db.storage, { organizationId: org.id, domain: 'acme' });
      expect(await getSiteModelSettings(db.storage, site.id)).toEqual({
        model: null,
        instructions: null,
        starterQuestions: null,
        modelOptions: null,
      });

      await updateSiteModelSettings(db.storage, site.id, {
        model: 'anthropic:claude-test',
        instructions: 'Be brief.',
        starterQuestions: ['How do I start?'],
        modelOptions: { temperature: 0.2, reasoningEffort: 'low' },
      });
      await updateSiteModelSettings(db.storage, site.id, { model: null });
      expect(await getSiteModelSettings(db.storage, site.id)).toEqual({
        model: null,
        instructions: 'Be brief.',
        starterQuestions: ['How do I start?'],
        modelOptions: { temperature: 0.2, reasoningEffort: 'low' },
      });
      await updateSiteModelSettings(db.storage, site.id, { modelOptions: null });
      expect((await getSiteModelSettings(db.storage, site.id))?.modelOptions).toBeNull();
      await updateSiteModelSettings(db.storage, site.id, { starterQuestions: null });
      expect((await getSiteModelSettings(db.storage, site.id))?.starterQuestions).toBeNull();
      // The site row the assistant route loads carries them.
      expect(await getSiteByDomain(db.storage, 'acme')).toMatchObject({
        model: null,
        instructions: 'Be brief.',
      });
    } finally {
      await db.drop();
    }
  });
});

describe('siteModelSettingsSchema', () => {
  it('normalises the model, trims instructions and treats blank instructions as none', () => {
    expect(siteModelSettingsSchema.parse({ model: ' openai:gpt-4o ', instructions: '  Hi  ' })).toEqual({
      model: 'openai:gpt-4o',
      instructions: 'Hi',
    });
    expect(siteModelSettingsSchema.parse({ instructions: '   ' })).toEqual({ instructions: null });
    expect(siteModelSettingsSchema.parse({ model: null })).toEqual({ model: null });
  });

  it('rejects bad models, overlong instructions and unknown keys', () => {
    const bad = siteModelSettingsSchema.safeParse({ model: 'gpt-4o' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['model']);
    expect(siteModelSettingsSchema.safeParse({ instructions: 'x'.repeat(4_001) }).success).toBe(false);
    expect(siteModelSettingsSchema.safeParse({ temperature: 2 }).success).toBe(false);
  });

  it('accepts model options within their limits, an empty set as none, and nothing else', () => {
    const options = { temperature: 0, maxOutputTokens: 800, reasoningEffort: 'high' };
    expect(siteModelSettingsSchema.parse({ modelOptions: options })).toEqual({ modelOptions: options });
    expect(siteModelSettingsSchema.parse({ modelOptions: {} })).toEqual({ modelOptions: null });
    for (const bad of [
      { temperature: 2.5 },
      { temperature: -0.1 },
      { maxOutputTokens: 0 },
      { maxOutputTokens: 32_001 },
      { maxOutputTokens: 1.5 },
      { reasoningEffort: 'extreme' },
      { topK: 3 },
    ]) {
      const parsed = siteModelSettingsSchema.safeParse({ modelOptions: bad });
      expect(parsed.success, JSON.stringify(bad)).toBe(false);
      expect(parsed.error?.issues[0]?.path[0]).toBe('modelOptions');
    }
  });

  it('reads hand-written stored options that do not validate as none', () => {
    expect(storedModelOptions('{"temperature":9}')).toBeNull();
    expect(storedModelOptions('not json')).toBeNull();
    expect(storedModelOptions('{"maxOutputTokens":300}')).toEqual({ maxOutputTokens: 300 });
  });
});
