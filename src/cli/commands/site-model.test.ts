import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getSiteModelSettings } from '../../assistant/providers/site-model-settings.ts';
import { createOrganization } from '../../tenancy/organizations.ts';
import { createSite } from '../../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../../testing/databases.ts';
import { runCliInProcess } from '../../testing/run-cli-in-process.ts';

describe('docent sites set-model / set-instructions / set-starter-questions / set-model-options', () => {
  let db: TestDatabase;
  let siteId: string;

  const run = (...args: string[]): Promise<string> => runCliInProcess(db.url, ...args);

  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    const org = await createOrganization(db.storage, { name: 'Acme' });
    siteId = (await createSite(db.storage, { organizationId: org.id, domain: 'acme' })).id;
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('sets the model, normalised, and goes back to the default', async () => {
    const out = await run('--json', 'sites', 'set-model', 'acme', 'openai-compatible:llama3.1:8b');
    expect(JSON.parse(out)).toEqual({
      domain: 'acme',
      model: 'openai-compatible:llama3.1:8b',
      instructions: null,
      starterQuestions: null,
      modelOptions: null,
    });
    await run('sites', 'set-model', 'acme', 'default');
    expect(await getSiteModelSettings(db.storage, siteId)).toEqual({
      model: null,
      instructions: null,
      starterQuestions: null,
      modelOptions: null,
    });
  });

  it('warns when the model names a provider this environment has no key for, and stores it anyway', async () => {
    let err = '';
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      err += String(chunk);
      return true;
    });
    const key = process.env.MISTRAL_API_KEY;
    delete process.env.MISTRAL_API_KEY;
    try {
      await run('sites', 'set-model', 'acme', 'mistral:mistral-small-latest');
      expect(err).toMatch(
        /warning: .*answers with builtin: provider mistral is not configured .*MISTRAL_API_KEY/,
      );
      expect((await getSiteModelSettings(db.storage, siteId))?.model).toBe('mistral:mistral-small-latest');
      err = '';
      await run('sites', 'set-model', 'acme', 'builtin');
      expect(err).toBe('');
    } finally {
      spy.mockRestore();
      if (key !== undefined) process.env.MISTRAL_API_KEY = key;
      await run('sites', 'set-model', 'acme', 'default');
    }
  });

  it('rejects a bad model with the reason, changing nothing', async () => {
    await expect(run('sites', 'set-model', 'acme', 'cohere:command-r')).rejects.toThrow(
      /unknown provider "cohere"/,
    );
    await expect(run('sites', 'set-model', 'nope', 'builtin')).rejects.toThrow(/No site "nope"/);
  });

  it('sets instructions from text or a file, and clears them', async () => {
    await run('sites', 'set-instructions', 'acme', 'Answer in French.');
    expect((await getSiteModelSettings(db.storage, siteId))?.instructions).toBe('Answer in French.');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docent-instr-')), 'instructions.md');
    fs.writeFileSync(file, 'Mention the changelog.\n');
    await run('sites', 'set-instructions', 'acme', '--file', file);
    expect((await getSiteModelSettings(db.storage, siteId))?.instructions).toBe('Mention the changelog.');
    await expect(run('sites', 'set-instructions', 'acme', 'x', '--clear')).rejects.toThrow(/exactly one/);
    await run('sites', 'set-instructions', 'acme', '--clear');
    expect((await getSiteModelSettings(db.storage, siteId))?.instructions).toBeNull();
  });

  it('sets starter questions from repeated options, refuses bad ones, and clears them', async () => {
    const out = await run(
      '--json',
      'sites',
      'set-starter-questions',
      'acme',
      '--starter-question',
      ' How do I rotate keys? ',
      '--starter-question',
      'When are invoices sent?',
    );
    expect(JSON.parse(out)).toMatchObject({
      starterQuestions: ['How do I rotate keys?', 'When are invoices sent?'],
    });
    await expect(
      run('sites', 'set-starter-questions', 'acme', '--starter-question', 'x'.repeat(201)),
    ).rejects.toThrow(/Invalid starter questions: must be at most 200 characters/);
    await expect(run('sites', 'set-starter-questions', 'acme')).rejects.toThrow(/exactly one/);
    expect((await getSiteModelSettings(db.storage, siteId))?.starterQuestions).toHaveLength(2);
    await run('sites', 'set-starter-questions', 'acme', '--clear');
    expect((await getSiteModelSettings(db.storage, siteId))?.starterQuestions).toBeNull();
  });

  it('sets model options, refuses out-of-range ones, and clears them', async () => {
    const out = await run(
      '--json',
      'sites',
      'set-model-options',
      'acme',
      '--temperature',
      '0.2',
      '--max-output-tokens',
      '800',
      '--reasoning-effort',
      'low',
    );
    expect(JSON.parse(out).modelOptions).toEqual({
      temperature: 0.2,
      maxOutputTokens: 800,
      reasoningEffort: 'low',
    });
    // Each refusal names the option as typed.
    const refused: [string[], string][] = [
      [['--temperature', '3'], '--temperature: must be at most 2'],
      [['--temperature', 'warm'], '--temperature: must be a number'],
      [['--max-output-tokens', '0'], '--max-output-tokens: must be at least 1'],
      [['--max-output-tokens', '1.5'], '--max-output-tokens: must be a whole number'],
      [['--max-output-tokens', '0x10'], '--max-output-tokens: must be a whole number'],
      [['--temperature', ''], '--temperature: must be a number'],
      [['--reasoning-effort', 'max'], '--reasoning-effort: must be low, medium or high'],
      [
        ['--temperature', '-1', '--max-output-tokens', '40000'],
        '--temperature: must be at least 0; --max-output-tokens: must be at most 32000',
      ],
    ];
    for (const [args, message] of refused)
      await expect(run('sites', 'set-model-options', 'acme', ...args), args.join(' ')).rejects.toMatchObject({
        message,
      });
    await expect(run('sites', 'set-model-options', 'acme')).rejects.toThrow(/at least one/);
    expect((await getSiteModelSettings(db.storage, siteId))?.modelOptions).toEqual({
      temperature: 0.2,
      maxOutputTokens: 800,
      reasoningEffort: 'low',
    });
    const text = await run('sites', 'set-model-options', 'acme', '--clear');
    expect(text).toContain("model options: the provider's defaults");
    expect((await getSiteModelSettings(db.storage, siteId))?.modelOptions).toBeNull();
  });
});
