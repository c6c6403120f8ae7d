import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertLedgerEntry } from '../limits/credits.ts';
import { createTenant } from '../limits/limits-fixtures.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { newId } from './ids.ts';
import { precompile } from './precompiled.ts';
import type { CreditLedgerTable } from './schema.ts';
import { withWriteUnit } from './write-unit.ts';

const counterOf = precompile<{ organizationId: string; period: string }, { used: number }>((db, p) =>
  db
    .selectFrom('credit_balances')
    .select('used')
    .where('organization_id', '=', p('organizationId'))
    .where('period', '=', p('period')),
);

const setCounter = precompile<{ organizationId: string; period: string; used: number }>((db, p) =>
  db
    .insertInto('credit_balances')
    .values({ organization_id: p('organizationId'), period: p('period'), used: p('used'), overage: 0 })
    .onConflict((oc) => oc.columns(['organization_id', 'period']).doUpdateSet({ used: p('used') })),
);

function ledgerRow(organizationId: string, requestId: string, kind: CreditLedgerTable['kind'] = 'charge') {
  return {
    id: newId('led'),
    organization_id: organizationId,
    site_id: null,
    request_id: requestId,
    kind,
    credits: 1,
    overage: 0,
    period: '2030-01',
    day: '2030-01-01',
    created_at: new Date().toISOString(),
  } satisfies CreditLedgerTable;
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

/** Watches a promise without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state = { settled: false };
  const settled = promise.finally(() => {
    state.settled = true;
  });
  return { state, settled };
}

describe.each(dialects)('write units on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  const requestIds = (organizationId: string) =>
    database.storage.db
      .selectFrom('credit_ledger')
      .select('request_id')
      .where('organization_id', '=', organizationId)
      .orderBy('request_id')
      .execute()
      .then((rows) => rows.map((r) => r.request_id));

  const counter = async (organizationId: string) => {
    const row = await database.storage.db
      .selectFrom('credit_balances')
      .select('used')
      .where('organization_id', '=', organizationId)
      .where('period', '=', 'count')
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.used);
  };

  it('commits the statements of a unit together and returns what work returns', async () => {
    const { storage } = database;
    const { organization } = await createTenant(storage, { domain: 'commit' });
    const result = await withWriteUnit(storage, { lockOrganizationId: organization.id }, async (unit) => {
      await unit.run(insertLedgerEntry, ledgerRow(organization.id, 'commit-1'));
      await unit.db.insertInto('credit_ledger').values(ledgerRow(organization.id, 'commit-2')).execute();
      await unit.run(setCounter, { organizationId: organization.id, period: 'count', used: 3 });
      // Reads inside the unit see its own writes.
      const read = await unit.get(counterOf, { organizationId: organization.id, period: 'count' });
      const all = await unit.all(counterOf, { organizationId: organization.id, period: 'count' });
      const missing = await unit.get(counterOf, { organizationId: organization.id, period: 'none' });
      return { read: Number(read?.used), all: all.length, missing };
    });
    expect(result).toEqual({ read: 3, all: 1, missing: undefined });
    expect(await requestIds(organization.id)).toEqual(['commit-1', 'commit-2']);
    expect(await counter(organization.id)).toBe(3);
  });

  it('rolls back every statement of the unit when work throws, and rethrows the same error', async () => {
    const { storage } = database;
    const { organization } = await createTenant(storage, { domain: 'rollback' });
    const failure = new Error('work failed');
    const outcome = withWriteUnit(storage, { lockOrganizationId: organization.id }, async (unit) => {
      await unit.run(insertLedgerEntry, ledgerRow(organization.id, 'rb-1'));
      await unit.db.insertInto('credit_ledger').values(ledgerRow(organization.id, 'rb-2')).execute();
      await unit.run(setCounter, { organizationId: organization.id, period: 'count', used: 9 });
      await nextMacrotask();
      throw failure;
    });
    await expect(outcome).rejects.toBe(failure);
    expect(await requestIds(organization.id)).toEqual([]);
    expect(await counter(organization.id)).toBeUndefined();

    // A failing statement (a unique violation) undoes the statements before it too (no lock needed).
    const violation = withWriteUnit(storage, {}, async (unit) => {
      await unit.run(insertLedgerEntry, ledgerRow(organization.id, 'rb-3'));
      await unit.run(insertLedgerEntry, ledgerRow(organization.id, 'rb-dup'));
      await unit.run(insertLedgerEntry, ledgerRow(organization.id, 'rb-dup'));
    });
    await expect(violation).rejects.toThrow(/unique|duplicate/i);
    expect(await requestIds(organization.id)).toEqual([]);
  });

  it('stays usable after a failed unit: the next unit commits', async () => {
    const { storage } = database;
    const { organization } = await createTenant(storage, { domain: 'after-failure' });
    for (let i = 0; i < 3; i++) {
      await expect(
        withWriteUnit(storage, { lockOrganizationId: organization.id }, async (unit) => {
          await unit.run(insertLedgerEntry, ledgerRow(organization.id, `af-failed-${i}`));
          throw new Error(`failure ${i}`);
        }),
      ).rejects.toThrow(`failure ${i}`);
    }
    if (storage.sqlite) expect(storage.sqlite.inTransaction).toBe(false);
    await withWriteUnit(storage, { lockOrganizationId: organization.id }, async (unit) => {
      await unit.run(insertLedgerEntry, ledgerRow(organization.id, 'af-ok'));
    });
    expect(await requestIds(organization.id)).toEqual(['af-ok']);
    // Plain queries and Kysely transactions work too.
    await storage.db
      .transaction()
      .execute((trx) =>
        trx.insertInto('credit_ledger').values(ledgerRow(organization.id, 'af-trx')).execute(),
      );
    expect(await requestIds(organization.id)).toEqual(['af-ok', 'af-trx']);
  });

  it('keeps the units of one commit apart: each failure undoes only its own writes', async () => {
    const { storage } = database;
    const { organization } = await createTenant(storage, { domain: 'one-commit' });
    const unitWriting = (requestId: string, fail: boolean) =>
      withWriteUnit(storage, { lockOrganizationId: organization.id }, async (unit) => {
        await unit.run(insertLedgerEntry, ledgerRow(organization.id, `${requestId}-a`));
        await unit.run(insertLedgerEntry, ledgerRow(organization.id, `${requestId}-b`));
        if (fail) throw new Error(`${requestId} failed`);
        return requestId;
      });
    // Queued in one turn of the event loop, so on SQLite they share a transaction: the first one (which
    // runs without a savepoint), one in the middle and the last one fail.
    const outcomes = await Promise.allSettled([
      unitWriting('u1', true),
      unitWriting('u2', false),
      unitWriting('u3', true),
      unitWriting('u4', false),
      unitWriting('u5', true),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : String(o.reason)))).toEqual([
      'Error: u1 failed',
      'u2',
      'Error: u3 failed',
      'u4',
      'Error: u5 failed',
    ]);
    expect(await requestIds(organization.id)).toEqual(['u2-a', 'u2-b', 'u4-a', 'u4-b']);
    if (storage.sqlite) expect(storage.sqlite.inTransaction).toBe(false);
  });

  it('never lets a storage.db query see a running unit (SQLite: it waits for the unit to finish)', async () => {
    const { storage } = database;
    const { organization } = await createTenant(storage, { domain: 'interleave' });
    const written = deferred();
    const release = deferred();
    const unit = withWriteUnit(storage, {}, async (u) => {
      await u.run(insertLedgerEntry, ledgerRow(organization.id, 'il-1'));
      written.resolve();
      await release.promise;
      await u.run(insertLedgerEntry, ledgerRow(organization.id, 'il-2'));
      return 'unit done';
    });
    await written.promise;
    const order: string[] = [];
    const outside = track(
      requestIds(organization.id).then((rows) => {
        order.push('outside');
        return rows;
      }),
    );
    const unitDone = unit.then((value) => {
      order.push('unit');
      return value;
    });
    if (dialect === 'sqlite') {
      // The unit holds Kysely's only connection: the query cannot run, however long we wait.
      await sleep(50);
      expect(outside.state.settled).toBe(false);
      release.resolve();
      expect(await unitDone).toBe('unit done');
      // It ran after the commit, so it sees both rows.
      expect(await outside.settled).toEqual(['il-1', 'il-2']);
      expect(order).toEqual(['unit', 'outside']);
    } else {
      // Another pooled connection: it completes at once and sees nothing uncommitted.
      expect(await outside.settled).toEqual([]);
      release.resolve();
      expect(await unitDone).toBe('unit done');
      expect(order).toEqual(['outside', 'unit']);
      expect(await requestIds(organization.id)).toEqual(['il-1', 'il-2']);
    }
  });

  it('is exact for 50 concurrent read-check-write units locking the same organization', async () => {
    const { storage } = database;
    const a = await createTenant(storage, { domain: 'count-a' });
    const b = await createTenant(storage, { domain: 'count-b' });
    const increment = (organizationId: string) =>
      withWriteUnit(storage, { lockOrganizationId: organizationId }, async (unit) => {
        const row = await unit.get(counterOf, { organizationId, period: 'count' });
        const current = row === undefined ? 0 : Number(row.used);
        // Give every other unit the chance to interleave between the read and the write.
        await nextMacrotask();
        await unit.run(setCounter, { organizationId, period: 'count', used: current + 1 });
        return current + 1;
      });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => increment((i % 2 === 0 ? a : b).organization.id)),
    );
    expect(await counter(a.organization.id)).toBe(50);
    expect(await counter(b.organization.id)).toBe(50);
    // Each unit saw the previous one's write: every value 1..50 was handed out once per organization.
    const sorted = (values: number[]) => [...values].sort((x, y) => x - y);
    const expected = Array.from({ length: 50 }, (_, i) => i + 1);
    expect(sorted(results.filter((_, i) => i % 2 === 0))).toEqual(expected);
    expect(sorted(results.filter((_, i) => i % 2 === 1))).toEqual(expected);
  });

  it('holds back units of the same organization; other organizations wait only on SQLite', async () => {
    const { storage } = database;
    const a = await createTenant(storage, { domain: 'hold-a' });
    const b = await createTenant(storage, { domain: 'hold-b' });
    const locked = deferred();
    const release = deferred();
    const holder = withWriteUnit(storage, { lockOrganizationId: a.organization.id }, async (unit) => {
      await unit.run(setCounter, { organizationId: a.organization.id, period: 'count', used: 1 });
      locked.resolve();
      await release.promise;
    });
    await locked.promise;
    const sameOrganization = track(
      withWriteUnit(storage, { lockOrganizationId: a.organization.id }, async (unit) => {
        const row = await unit.get(counterOf, { organizationId: a.organization.id, period: 'count' });
        await unit.run(setCounter, {
          organizationId: a.organization.id,
          period: 'count',
          used: Number(row?.used ?? 0) + 1,
        });
      }),
    );
    const otherOrganization = track(
      withWriteUnit(storage, { lockOrganizationId: b.organization.id }, async (unit) => {
        await unit.run(setCounter, { organizationId: b.organization.id, period: 'count', used: 1 });
      }),
    );
    if (dialect === 'postgres') {
      await otherOrganization.settled;
      expect(await counter(b.organization.id)).toBe(1);
    }
    await sleep(50);
    expect(sameOrganization.state.settled).toBe(false);
    if (dialect === 'sqlite') expect(otherOrganization.state.settled).toBe(false);
    release.resolve();
    await Promise.all([holder, sameOrganization.settled, otherOrganization.settled]);
    // The waiting unit read the holder's committed write.
    expect(await counter(a.organization.id)).toBe(2);
    expect(await counter(b.organization.id)).toBe(1);
  });
});
