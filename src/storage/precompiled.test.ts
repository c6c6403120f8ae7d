import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertLedgerEntry, upsertBalance } from '../limits/credits.ts';
import { createTenant } from '../limits/limits-fixtures.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import type { DialectName } from './database.ts';
import { newId } from './ids.ts';
import { bind, executePrecompiled, type ParamsOf, precompile } from './precompiled.ts';
import type { CreditLedgerTable, Database } from './schema.ts';

/** A Kysely of `dialect` that compiles but never connects: shows what the other dialect's SQL looks like. */
function compileOnly(dialect: DialectName): Kysely<Database> {
  return new Kysely<Database>({
    dialect:
      dialect === 'postgres'
        ? {
            createAdapter: () => new PostgresAdapter(),
            createDriver: () => new DummyDriver(),
            createIntrospector: (db) => new PostgresIntrospector(db),
            createQueryCompiler: () => new PostgresQueryCompiler(),
          }
        : {
            createAdapter: () => new SqliteAdapter(),
            createDriver: () => new DummyDriver(),
            createIntrospector: (db) => new SqliteIntrospector(db),
            createQueryCompiler: () => new SqliteQueryCompiler(),
          },
  });
}

type ChargeParams = { requestId: string };

const buildChargeOf = (db: Kysely<Database>, p: ParamsOf<ChargeParams>) =>
  db
    .selectFrom('credit_ledger')
    .select(['request_id', 'kind', 'credits'])
    .where('request_id', '=', p('requestId'))
    .where('kind', '=', 'charge');

function ledgerRow(
  organizationId: string,
  requestId: string,
  kind: CreditLedgerTable['kind'],
  credits: number,
): CreditLedgerTable {
  return {
    id: newId('led'),
    organization_id: organizationId,
    site_id: null,
    request_id: requestId,
    kind,
    credits,
    overage: 0,
    period: '2030-01',
    day: '2030-01-15',
    created_at: new Date().toISOString(),
  };
}

describe.each(dialects)('precompiled statements on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('builds and compiles once per dialect, then reuses the same template for every bind', async () => {
    const { storage } = database;
    const build = vi.fn(buildChargeOf);
    const statement = precompile<ChargeParams, { request_id: string; kind: string; credits: number }>(build);
    expect(build).not.toHaveBeenCalled();

    const first = bind(statement, storage.db, dialect, { requestId: 'a' });
    const template = statement.templates.get(dialect);
    expect(template).toBeDefined();
    for (let i = 0; i < 20; i++) {
      const bound = bind(statement, storage.db, dialect, { requestId: `r${i}` });
      expect(bound.sql).toBe(first.sql);
      expect(bound.values).toEqual([`r${i}`, 'charge']);
    }
    for (let i = 0; i < 5; i++)
      await executePrecompiled(storage.db, dialect, statement, { requestId: `e${i}` });
    // A transaction handle compiles alike: the template is shared, not rebuilt.
    await storage.db
      .transaction()
      .execute((trx) => executePrecompiled(trx, dialect, statement, { requestId: 'in-trx' }));
    expect(build).toHaveBeenCalledTimes(1);
    expect(statement.templates.get(dialect)).toBe(template);
    expect(statement.templates.size).toBe(1);

    // The other dialect gets its own template (placeholders differ), built once as well.
    const other: DialectName = dialect === 'sqlite' ? 'postgres' : 'sqlite';
    const otherDb = compileOnly(other);
    const otherFirst = bind(statement, otherDb, other, { requestId: 'x' });
    bind(statement, otherDb, other, { requestId: 'y' });
    expect(build).toHaveBeenCalledTimes(2);
    expect(statement.templates.size).toBe(2);
    expect(statement.templates.get(dialect)).toBe(template);
    const placeholders = (d: DialectName) => (d === 'postgres' ? /\$1\b.*\$2\b/s : /\?.*\?/s);
    expect(first.sql).toMatch(placeholders(dialect));
    expect(otherFirst.sql).toMatch(placeholders(other));
    expect(otherFirst.sql).not.toBe(first.sql);
    await otherDb.destroy();
  });

  it('binds a parameter used twice (ON CONFLICT DO UPDATE SET) to the same value in both places', async () => {
    const { storage } = database;
    const { organization } = await createTenant(storage, { domain: 'twice' });
    // credits.ts's own statement: its ON CONFLICT branch repeats two parameters.
    const statement = upsertBalance;
    const params = { organization_id: organization.id, period: '2030-01', used: 7, overage: 2 };
    const { sql, values } = bind(statement, storage.db, dialect, params);
    expect(sql).toMatch(/on conflict/i);
    // insert values (4) then the update set (2): used and overage appear twice each.
    expect(values).toEqual([organization.id, '2030-01', 7, 2, 7, 2]);

    await executePrecompiled(storage.db, dialect, statement, params);
    // The conflicting insert takes the update branch, which must receive the new values too.
    await executePrecompiled(storage.db, dialect, statement, { ...params, used: 11, overage: 5 });
    const rows = await storage.db
      .selectFrom('credit_balances')
      .selectAll()
      .where('organization_id', '=', organization.id)
      .execute();
    expect(rows.map((r) => [r.period, Number(r.used), Number(r.overage)])).toEqual([['2030-01', 11, 5]]);
  });

  it('keeps constants the builder bound itself in place between the parameters', async () => {
    const { storage } = database;
    const statement = precompile<{ requestId: string; minimum: number }, { kind: string }>((db, p) =>
      db
        .selectFrom('credit_ledger')
        .select('kind')
        .where('kind', '=', 'charge')
        .where('request_id', '=', p('requestId'))
        .where('period', '=', '2030-01')
        .where('credits', '>=', p('minimum')),
    );
    expect(bind(statement, storage.db, dialect, { requestId: 'one', minimum: 1 }).values).toEqual([
      'charge',
      'one',
      '2030-01',
      1,
    ]);
    expect(bind(statement, storage.db, dialect, { requestId: 'two', minimum: 5 }).values).toEqual([
      'charge',
      'two',
      '2030-01',
      5,
    ]);

    const { organization } = await createTenant(storage, { domain: 'constants' });
    await storage.db
      .insertInto('credit_ledger')
      .values([
        ledgerRow(organization.id, 'const-req', 'charge', 3),
        ledgerRow(organization.id, 'const-req', 'refund', -3),
      ])
      .execute();
    // The constant 'charge' filters out the refund row of the same request.
    expect(
      await executePrecompiled(storage.db, dialect, statement, { requestId: 'const-req', minimum: 1 }),
    ).toEqual([{ kind: 'charge' }]);
    expect(
      await executePrecompiled(storage.db, dialect, statement, { requestId: 'const-req', minimum: 4 }),
    ).toEqual([]);
  });

  it('throws on a missing parameter, but binds an explicit null', async () => {
    const { storage } = database;
    const statement = precompile<ChargeParams>(buildChargeOf);
    expect(() => bind(statement, storage.db, dialect, {} as ChargeParams)).toThrow(
      'missing parameter "requestId"',
    );
    // The template compiled by the failed bind is still good.
    expect(bind(statement, storage.db, dialect, { requestId: 'ok' }).values).toEqual(['ok', 'charge']);
    await expect(
      executePrecompiled(storage.db, dialect, statement, { requestId: undefined } as unknown as ChargeParams),
    ).rejects.toThrow('missing parameter "requestId"');

    const { organization } = await createTenant(storage, { domain: 'nulls' });
    const row = ledgerRow(organization.id, 'null-site', 'charge', 1);
    expect(bind(insertLedgerEntry, storage.db, dialect, row).values).toContain(null);
    const { site_id: _siteId, ...withoutSite } = row;
    expect(() => bind(insertLedgerEntry, storage.db, dialect, withoutSite as CreditLedgerTable)).toThrow(
      'missing parameter "site_id"',
    );
    await executePrecompiled(storage.db, dialect, insertLedgerEntry, row);
    const stored = await storage.db
      .selectFrom('credit_ledger')
      .select(['site_id', 'request_id'])
      .where('id', '=', row.id)
      .executeTakeFirst();
    expect(stored).toEqual({ site_id: null, request_id: 'null-site' });
  });

  it('executePrecompiled writes and returns real rows', async () => {
    const { storage } = database;
    const { organization } = await createTenant(storage, { domain: 'rows' });
    const insert = precompile<{ id: string; orgId: string; requestId: string; credits: number }>((db, p) =>
      db.insertInto('credit_ledger').values({
        id: p('id'),
        organization_id: p('orgId'),
        site_id: null,
        request_id: p('requestId'),
        kind: 'charge',
        credits: p('credits'),
        overage: 0,
        period: '2030-02',
        day: '2030-02-01',
        created_at: '2030-02-01T00:00:00.000Z',
      }),
    );
    const entries = precompile<
      { orgId: string; period: string },
      { request_id: string; kind: string; credits: number; site_id: string | null }
    >((db, p) =>
      db
        .selectFrom('credit_ledger')
        .select(['request_id', 'kind', 'credits', 'site_id'])
        .where('organization_id', '=', p('orgId'))
        .where('period', '=', p('period'))
        .orderBy('request_id'),
    );
    for (const [requestId, credits] of [
      ['rows-b', 2],
      ['rows-a', 5],
      ['rows-c', 1],
    ] as const) {
      const inserted = await executePrecompiled(storage.db, dialect, insert, {
        id: newId('led'),
        orgId: organization.id,
        requestId,
        credits,
      });
      expect(inserted).toEqual([]);
    }
    const rows = await executePrecompiled(storage.db, dialect, entries, {
      orgId: organization.id,
      period: '2030-02',
    });
    expect(rows.map((r) => ({ ...r, credits: Number(r.credits) }))).toEqual([
      { request_id: 'rows-a', kind: 'charge', credits: 5, site_id: null },
      { request_id: 'rows-b', kind: 'charge', credits: 2, site_id: null },
      { request_id: 'rows-c', kind: 'charge', credits: 1, site_id: null },
    ]);
    expect(
      await executePrecompiled(storage.db, dialect, entries, { orgId: organization.id, period: '1999-01' }),
    ).toEqual([]);

    // RETURNING rows come back as well.
    const returning = precompile<{ orgId: string; period: string; used: number }, { used: number }>((db, p) =>
      db
        .insertInto('credit_balances')
        .values({ organization_id: p('orgId'), period: p('period'), used: p('used'), overage: 0 })
        .returning('used'),
    );
    const returned = await executePrecompiled(storage.db, dialect, returning, {
      orgId: organization.id,
      period: '2030-02',
      used: 8,
    });
    expect(returned.map((r) => Number(r.used))).toEqual([8]);
  });
});
