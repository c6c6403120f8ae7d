/** A write refused by a unique index, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  // PostgreSQL unique_violation, SQLite SQLITE_CONSTRAINT_UNIQUE.
  return (
    e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/i.test(e.message ?? '')
  );
}
