import type { Kysely } from 'kysely';

/** Values of the plan every organization starts on (`free`), as this migration wrote them. */
const FREE_PLAN = {
  id: 'free',
  name: 'Free',
  monthly_credits: 100_000,
  overage_enabled: 0,
  overage_cap: null,
  credit_cost: 1,
  org_requests_per_hour: 10_000,
  ip_requests_per_day: 10_000,
  admin_requests_per_minute: 600,
};

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sites')
    .addColumn('allowed_origins', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();

  await db.schema
    .createTable('plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('monthly_credits', 'integer', (c) => c.notNull())
    .addColumn('overage_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('overage_cap', 'integer')
    .addColumn('credit_cost', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('org_requests_per_hour', 'integer', (c) => c.notNull())
    .addColumn('ip_requests_per_day', 'integer', (c) => c.notNull())
    .addColumn('admin_requests_per_minute', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('plans')
    .values({ ...FREE_PLAN, created_at: new Date().toISOString() })
    .execute();

  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    // No foreign key: usage stays with the organization after a site is deleted.
    .addColumn('site_id', 'text')
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('credits', 'integer', (c) => c.notNull())
    .addColumn('overage', 'integer', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('credit_ledger_request_unique', ['request_id', 'kind'])
    .execute();
  await db.schema
    .createIndex('credit_ledger_org_day_idx')
    .on('credit_ledger')
    .columns(['organization_id', 'day'])
    .execute();

  await db.schema
    .createTable('credit_balances')
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addColumn('overage', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('credit_balances_pk', ['organization_id', 'period'])
    .execute();

  // Key creation is capped per organization and hour; this index serves that count.
  await db.schema
    .createIndex('api_keys_org_created_idx')
    .on('api_keys')
    .columns(['organization_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('threads_org_idx')
    .on('threads')
    .columns(['organization_id', 'updated_at'])
    .execute();
}
