import { DomainError } from '../errors/domain-error.ts';

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

/**
 * What to throw for a write that failed: a foreign key's refusal means the site it names was deleted
 * since the caller found it (a DELETE racing the request, or another process's, while a tenancy cache
 * still held it), which is the caller's 404, not the driver's error; anything else as it was.
 */
export function siteGoneOr(error: unknown): unknown {
  return isForeignKeyViolation(error)
    ? new DomainError('not_found', 'No such site', { cause: error })
    : error;
}
