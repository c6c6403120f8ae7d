import type { Storage } from '../storage/database.ts';
import { newId, nowIso } from '../storage/ids.ts';
import type { OrganizationsTable } from '../storage/schema.ts';

export type Organization = OrganizationsTable;

export async function createOrganization(
  storage: Storage,
  input: { name: string; plan?: string },
): Promise<Organization> {
  const row: Organization = {
    id: newId('org'),
    name: input.name,
    plan: input.plan ?? 'free',
    created_at: nowIso(),
  };
  await storage.db.insertInto('organizations').values(row).execute();
  return row;
}

export async function getOrganization(storage: Storage, id: string): Promise<Organization | undefined> {
  return storage.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countOrganizations(storage: Storage): Promise<number> {
  const row = await storage.db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listOrganizations(storage: Storage): Promise<Organization[]> {
  return storage.db.selectFrom('organizations').selectAll().orderBy('created_at').execute();
}

export async function setOrganizationPlan(storage: Storage, id: string, plan: string): Promise<boolean> {
  const result = await storage.db
    .updateTable('organizations')
    .set({ plan })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
