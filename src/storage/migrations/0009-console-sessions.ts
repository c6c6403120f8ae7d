import type { Kysely } from 'kysely';

/**
 * Sign-ins to the owner's console: an admin key exchanged for a session, kept by its hash (the cookie
 * holds the secret) with the CSRF token its forms carry. Ended by sign-out, expiry, or its key's revocation.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the database as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_sessions_expires_idx')
    .on('console_sessions')
    .column('expires_at')
    .execute();
}
