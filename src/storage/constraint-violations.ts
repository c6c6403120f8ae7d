/** A write refused by a unique index, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  // PostgreSQL unique_violation, SQLite SQLITE_CONSTRAINT_UNIQUE.
  return (
    e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/i.test(e.message ?? '')
  );
}

/**
 * A write refused by a foreign key, on either dialect: the row it refers to is gone (a site deleted by
 * another process while this one still had it cached).
 */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  // PostgreSQL foreign_key_violation, SQLite SQLITE_CONSTRAINT_FOREIGNKEY.
  return (
    e.code === '23503' ||
    e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    /FOREIGN KEY constraint/i.test(e.message ?? '')
  );
}
