import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeCredits } from '../../limits/credits.ts';
import { findActiveKey } from '../../tenancy/api-keys.ts';
import { createOrganization } from '../../tenancy/organizations.ts';
import { getOrganizationPlan } from '../../tenancy/plans.ts';
import { createSite } from '../../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../../testing/databases.ts';
import { runCliInProcess } from '../../testing/run-cli-in-process.ts';
import { CliError } from '../context.ts';

describe('docent keys / sites / usage / orgs / plans', () => {
  let db: TestDatabase;
  let orgId: string;

  const run = (...args: string[]): Promise<string> => runCliInProcess(db.url, ...args);

  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    orgId = (await createOrganization(db.storage, { name: 'Acme' })).id;
    await createSite(db.storage, { organizationId: orgId, domain: 'acme' });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('creates, lists and revokes assistant and admin keys', async () => {
    const assistant = JSON.parse(await run('--json', 'keys', 'create', '--site', 'acme', '--name', 'web'));
    expect(assistant).toMatchObject({
      kind: 'assistant',
      site: 'acme',
      key: expect.stringMatching(/^svc_dsc_/),
    });
    const admin = JSON.parse(await run('--json', 'keys', 'create', '--admin', '--org', orgId));
    expect(admin).toMatchObject({ kind: 'admin', site: null, key: expect.stringMatching(/^svc_(?!dsc_)/) });
    expect((await findActiveKey(db.storage, admin.key))?.kind).toBe('admin');

    const listed = await run('--json', 'keys', 'list', '--org', orgId);
    expect(listed).not.toContain(assistant.key);
    expect(listed).not.toContain(admin.key);
    const keys = JSON.parse(listed).keys as { id: string; display: string; site: string | null }[];
    expect(keys.map((k) => k.display)).toEqual([
      `svc_dsc_…${assistant.key.slice(-4)}`,
      `svc_…${admin.key.slice(-4)}`,
    ]);
    // --site: the site's keys and the organization's admin keys (they work on it too), not another site's.
    const elsewhere = await createSite(db.storage, { organizationId: orgId, domain: 'acme-keys' });
    try {
      await run('keys', 'create', '--site', 'acme-keys');
      const bySite = JSON.parse(await run('--json', 'keys', 'list', '--site', 'acme')).keys as {
        id: string;
        kind: string;
        site: string | null;
      }[];
      expect(bySite.map((k) => [k.id, k.kind, k.site])).toEqual([
        [assistant.id, 'assistant', 'acme'],
        [admin.id, 'admin', null],
      ]);
    } finally {
      await db.storage.db.deleteFrom('sites').where('id', '=', elsewhere.id).execute();
    }
    // As the docs say: when each key was created, expires and was last used, and its state.
    const stamp = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
    const lines = (await run('keys', 'list', '--site', 'acme')).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${assistant.id}  assistant  svc_dsc_…\\S{4}  acme  web  active  created ${stamp}  expires never  last used never$`,
      ),
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^${admin.id}  admin {6}svc_…\\S{4}  \\(organization\\)  +active  created ${stamp}  expires never`,
      ),
    );
    const expiring = JSON.parse(
      await run('--json', 'keys', 'create', '--site', 'acme', '--expires-at', '2099-01-31T00:00:00Z'),
    );
    expect(await run('keys', 'list', '--site', 'acme')).toMatch(
      new RegExp(
        `^${expiring.id} .* active  created ${stamp}  expires 2099-01-31T00:00:00\\.000Z  last used never$`,
        'm',
      ),
    );
    await db.storage.db
      .updateTable('api_keys')
      .set({ expires_at: '2001-01-01T00:00:00.000Z' })
      .where('id', '=', expiring.id)
      .execute();
    expect(await run('keys', 'list', '--site', 'acme')).toMatch(
      new RegExp(`^${expiring.id} .* expired  created ${stamp}  expires 2001-01-01T00:00:00\\.000Z`, 'm'),
    );

    const revoked = JSON.parse(await run('--json', 'keys', 'revoke', assistant.id));
    expect(revoked).toMatchObject({ id: assistant.id, site: 'acme' });
    expect(revoked.siteId).toBeUndefined();
    expect(await findActiveKey(db.storage, assistant.key)).toBeUndefined();
    expect(await run('keys', 'list', '--site', 'acme')).toMatch(
      new RegExp(`^${assistant.id} .* web  revoked ${stamp}  created ${stamp}`, 'm'),
    );
    await expect(run('keys', 'revoke', 'key_nope')).rejects.toThrow(CliError);
    await expect(run('keys', 'create')).rejects.toThrow(/--site/);
    // The admin API's limit on a key's name (200 characters), not a 5,000-character label in every list.
    await expect(run('keys', 'create', '--site', 'acme', '--name', 'n'.repeat(201))).rejects.toThrow(
      '--name must be at most 200 characters',
    );
    await expect(run('keys', 'create', '--admin')).rejects.toThrow(/--org/);
    await expect(run('keys', 'create', '--site', 'acme', '--name', ' ')).rejects.toThrow(
      /^--name must not be empty/,
    );
    await expect(run('keys', 'create', '--site', 'acme', '--name', 'a\u001b[2Jb')).rejects.toThrow(
      /^--name must not hold control characters/,
    );
    await expect(run('keys', 'create', '--site', 'acme', '--expires-at', '2001-01-01')).rejects.toThrow(
      /future/,
    );
  });

  it('creates, shows, restricts and deletes sites', async () => {
    const created = JSON.parse(
      await run(
        '--json',
        'sites',
        'create',
        'acme-two',
        '--org',
        orgId,
        '--allowed-origin',
        'https://acme.example',
      ),
    );
    expect(created).toMatchObject({ domain: 'acme-two', allowedOrigins: ['https://acme.example'] });
    expect(JSON.parse(await run('--json', 'sites', 'list', '--org', orgId)).sites).toHaveLength(2);
    await expect(run('sites', 'list', '--org', 'org_nope')).rejects.toThrow('No organization "org_nope"');
    const set = JSON.parse(
      await run('--json', 'sites', 'set-origins', 'acme-two', 'https://a.example', 'http://localhost:3000'),
    );
    expect(set.allowedOrigins).toEqual(['https://a.example', 'http://localhost:3000']);
    expect(JSON.parse(await run('--json', 'sites', 'set-origins', 'acme-two')).allowedOrigins).toEqual([]);
    // As the address bar shows it: stored as browsers send it.
    expect(
      JSON.parse(await run('--json', 'sites', 'set-origins', 'acme-two', 'HTTPS://A.Example/'))
        .allowedOrigins,
    ).toEqual(['https://a.example']);
    await expect(run('sites', 'set-origins', 'acme-two', 'https://a.example/docs')).rejects.toThrow(
      /^origin "https:\/\/a.example\/docs": must be an origin such as https:\/\/docs.example.com: scheme and host only, no path$/,
    );
    // The bad value is quoted, not numbered.
    await expect(run('sites', 'set-origins', 'acme-two', 'https://a.example', 'not-a-url')).rejects.toThrow(
      /^origin "not-a-url": must be an origin/,
    );
    await expect(run('sites', 'create', 'Bad Domain', '--org', orgId)).rejects.toThrow(CliError);
    await expect(run('sites', 'delete', 'acme-two')).rejects.toThrow(/--yes/);
    await run('sites', 'delete', 'acme-two', '--yes');
    await expect(run('sites', 'show', 'acme-two')).rejects.toThrow(/No site/);
  });

  it('says where a site’s citations link: its base URL, or the page view', async () => {
    // `init --base-url` set it, and nothing but --json showed it afterwards.
    const based = await createSite(db.storage, {
      organizationId: orgId,
      domain: 'acme-based',
      baseUrl: 'https://docs.acme.example',
    });
    try {
      expect(await run('sites', 'show', 'acme-based')).toContain('  base https://docs.acme.example  ');
      expect(await run('sites', 'show', 'acme')).toContain('  base (page view)  ');
    } finally {
      await db.storage.db.deleteFrom('sites').where('id', '=', based.id).execute();
    }
  });

  it('says so when there is no organization, as sites list and keys list do', async () => {
    const empty = await createTestDatabase('sqlite');
    try {
      expect(await runCliInProcess(empty.url, 'orgs', 'list')).toBe('No organizations.\n');
      expect(JSON.parse(await runCliInProcess(empty.url, '--json', 'orgs', 'list'))).toEqual({
        organizations: [],
      });
    } finally {
      await empty.drop();
    }
  });

  it('shows organizations in --json with camelCase keys, as every other command does', async () => {
    const created = JSON.parse(await run('--json', 'orgs', 'create', '--name', 'Camel'));
    const expected = {
      id: created.id,
      name: 'Camel',
      plan: 'free',
      createdAt: expect.any(String),
      retentionDays: null,
    };
    expect(created).toEqual(expected);
    const listed = JSON.parse(await run('--json', 'orgs', 'list')).organizations;
    expect(listed).toContainEqual(expected);
    await db.storage.db.deleteFrom('organizations').where('id', '=', created.id).execute();
  });

  it('sets plans and shows usage', async () => {
    await run('plans', 'set', 'team', '--monthly-credits', '500', '--overage', 'on', '--overage-cap', '100');
    await run('orgs', 'set-plan', orgId, 'team');
    expect(await getOrganizationPlan(db.storage, orgId)).toMatchObject({
      id: 'team',
      monthlyCredits: 500,
      overageEnabled: true,
      overageCap: 100,
      orgRequestsPerHour: 10_000,
    });
    await expect(run('plans', 'set', 'team', '--credit-cost', '0')).rejects.toThrow(CliError);
    // Only digits: an unset shell variable ('') is not 0 credits, nor is 1e3 a thousand.
    for (const value of ['', ' ', '1e3', '0x10', ' 5', '-1', '1.5'])
      for (const flag of ['--monthly-credits', '--overage-cap', '--credit-cost'])
        await expect(run('plans', 'set', 'team', flag, value)).rejects.toThrow(
          `${flag} must be a whole number of 0 or more (got "${value}")`,
        );
    expect(await getOrganizationPlan(db.storage, orgId)).toMatchObject({
      monthlyCredits: 500,
      overageCap: 100,
    });
    await expect(run('orgs', 'set-plan', orgId, 'nope')).rejects.toThrow(/No plan/);
    // Empty names and ids (an unset shell variable) are refused, nothing created.
    await expect(run('plans', 'set', '', '--monthly-credits', '5')).rejects.toThrow(
      'plan id must not be empty',
    );
    await expect(run('plans', 'set', ' ', '--name', 'x')).rejects.toThrow('plan id must not be empty');
    await expect(run('plans', 'set', 'team', '--name', '')).rejects.toThrow('--name must not be empty');
    await expect(run('orgs', 'create', '--name', '')).rejects.toThrow('--name must not be empty');
    // Listed one row each: a line break or a bidi override would forge or disguise a row.
    for (const name of ['Acme\nevil  org_x  plan enterprise', 'Acme\u202eesirpretne', 'x'.repeat(201)]) {
      await expect(run('orgs', 'create', '--name', name)).rejects.toThrow(/^--name must/);
      await expect(run('plans', 'set', 'team', '--name', name)).rejects.toThrow(/^--name must/);
    }
    expect(JSON.parse(await run('--json', 'orgs', 'create', '--name', '  Trimmed  ')).name).toBe('Trimmed');
    // A plan's id is what those rows show of it ('plans list', and 'orgs list' after 'plan').
    for (const id of ['team\nevil  0 credits/month', 'team\u202emaet', 'team\t', ' team']) {
      await expect(run('plans', 'set', id, '--monthly-credits', '5')).rejects.toThrow(/^The plan id must/);
    }
    expect(
      JSON.parse(await run('--json', 'plans', 'list')).plans.map((p: { id: string }) => p.id),
    ).not.toContain('');
    for (const requestId of ['r1', 'r2', 'r3'])
      await chargeCredits(db.storage, { organizationId: orgId, siteId: null, requestId });
    const usage = JSON.parse(await run('--json', 'usage', '--site', 'acme'));
    expect(usage.period).toMatchObject({ included: 500, used: 3, remaining: 497 });
    expect(usage.days).toEqual([expect.objectContaining({ requests: 3, credits: 3 })]);
    // The admin API's report: the month named `month`, and the range's totals.
    expect(usage.period.month).toMatch(/^\d{4}-\d{2}$/);
    expect(usage.totals).toEqual({ requests: 3, credits: 3, overage: 0 });
    await expect(
      run('usage', '--site', 'acme', '--from', '2024-01-01', '--to', '2026-01-01'),
    ).rejects.toThrow(/more than 366 days/);
    expect(await run('usage', '--org', orgId)).toContain('3 of 500 included credits');
    await expect(run('usage')).rejects.toThrow(/--org/);
  });

  it('refuses a usage range of days not on the calendar, or the wrong way round', async () => {
    for (const [flag, day] of [
      ['--from', '2026-13-01'],
      ['--to', '2026-02-30'],
      ['--from', '2026-00-10'],
      ['--to', '2026-6-1'],
    ])
      await expect(run('usage', '--site', 'acme', flag as string, day as string)).rejects.toThrow(
        `${flag} must be a day on the calendar, YYYY-MM-DD (got "${day}")`,
      );
    await expect(
      run('usage', '--site', 'acme', '--from', '2026-06-30', '--to', '2026-06-01'),
    ).rejects.toThrow('--from 2026-06-30 is after --to 2026-06-01');
    await expect(run('usage', '--site', 'acme', '--from', '2999-01-01')).rejects.toThrow(
      /^--from 2999-01-01 is after --to \(today, \d{4}-\d{2}-\d{2}\)$/,
    );
    // A leap day is one; a one-day range is a range.
    const leap = JSON.parse(
      await run('--json', 'usage', '--site', 'acme', '--from', '2024-02-29', '--to', '2024-02-29'),
    );
    expect(leap).toMatchObject({ from: '2024-02-29', to: '2024-02-29', days: [] });
  });
});
