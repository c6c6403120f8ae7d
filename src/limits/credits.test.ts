import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../errors/domain-error.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { chargeCredits, dailyUsage, getBalance, refundCredits } from './credits.ts';
import { createTenant } from './limits-fixtures.ts';

describe.each(dialects)('credit ledger on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('refuses a second fresh charge of one request id instead of charging twice', async () => {
    const { storage } = database;
    const { organization } = await createTenant(storage, { domain: 'fresh', plan: { monthlyCredits: 10 } });
    const input = { organizationId: organization.id, siteId: null, requestId: 'req_fresh_1', fresh: true };
    expect(await chargeCredits(storage, input)).toMatchObject({ credits: 1, overage: 0 });
    await expect(chargeCredits(storage, input)).rejects.toThrow();
    expect((await getBalance(storage, organization.id)).used).toBe(1);
  });

  it('charges the configured cost once per request id and refunds once', async () => {
    const { storage } = database;
    const { organization } = await createTenant(storage, {
      domain: 'cost',
      plan: { monthlyCredits: 10, creditCost: 3 },
    });
    const input = { organizationId: organization.id, siteId: null, requestId: 'req_cost_1' };
    expect(await chargeCredits(storage, input)).toMatchObject({ credits: 3, overage: 0 });
    expect(await chargeCredits(storage, input)).toMatchObject({ credits: 3, overage: 0 });
    expect((await getBalance(storage, organization.id)).used).toBe(3);
    expect(await refundCredits(storage, input)).toBe(true);
    expect(await refundCredits(storage, input)).toBe(false);
    expect(
      await refundCredits(storage, { organizationId: organization.id, requestId: 'never-charged' }),
    ).toBe(false);
    expect((await getBalance(storage, organization.id)).used).toBe(0);
    const rows = await storage.db
      .selectFrom('credit_ledger')
      .selectAll()
      .where('organization_id', '=', organization.id)
      .execute();
    expect(rows.map((r) => [r.kind, Number(r.credits)])).toEqual([
      ['charge', 3],
      ['refund', -3],
    ]);
    expect(await dailyUsage(storage, organization.id, { from: '2000-01-01', to: '2999-12-31' })).toEqual([
      expect.objectContaining({ requests: 0, credits: 0 }),
    ]);
  });

  it('refuses with credits_exhausted when overage is off, and bills overage up to the cap when on', async () => {
    const { storage } = database;
    const off = await createTenant(storage, { domain: 'off', plan: { monthlyCredits: 2 } });
    const charge = (organizationId: string, requestId: string) =>
      chargeCredits(storage, { organizationId, siteId: null, requestId });
    await charge(off.organization.id, 'off-1');
    await charge(off.organization.id, 'off-2');
    const refused = await charge(off.organization.id, 'off-3').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).kind).toBe('credits_exhausted');

    const on = await createTenant(storage, {
      domain: 'on',
      plan: { monthlyCredits: 2, overageEnabled: true, overageCap: 3, creditCost: 2 },
    });
    expect(await charge(on.organization.id, 'on-1')).toMatchObject({ credits: 2, overage: 0 });
    expect(await charge(on.organization.id, 'on-2')).toMatchObject({ credits: 2, overage: 2 });
    // A third would bring overage to 4, past the cap of 3.
    await expect(charge(on.organization.id, 'on-3')).rejects.toThrow(/overage cap of 3/);
    expect(await getBalance(storage, on.organization.id)).toMatchObject({
      used: 4,
      overage: 2,
      remaining: 0,
    });
    const uncapped = await createTenant(storage, {
      domain: 'uncapped',
      plan: { monthlyCredits: 1, overageEnabled: true, overageCap: null },
    });
    for (let i = 0; i < 5; i++) await charge(uncapped.organization.id, `u-${i}`);
    expect(await getBalance(storage, uncapped.organization.id)).toMatchObject({ used: 5, overage: 4 });
  });

  it('is exact under concurrency and keeps organizations apart', async () => {
    const { storage } = database;
    const a = await createTenant(storage, { domain: 'conc-a', plan: { monthlyCredits: 25 } });
    const b = await createTenant(storage, { domain: 'conc-b', plan: { monthlyCredits: 25 } });
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        chargeCredits(storage, {
          organizationId: (i % 2 === 0 ? a : b).organization.id,
          siteId: null,
          requestId: `conc-${i}`,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
    expect((await getBalance(storage, a.organization.id)).used).toBe(25);
    expect((await getBalance(storage, b.organization.id)).used).toBe(25);
  });
});
