import { parseDatabaseUrl } from './database.ts';

/**
 * What went wrong when a database could not be opened at all (a file that is not a SQLite database or
 * cannot be opened, a PostgreSQL server that refuses the connection, an unknown host, a refused login or
 * database): the user's setting, told in one line. Null for anything else (a failed migration), which
 * keeps its stack.
 */
export function databaseOpenProblem(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return null;
  const opening =
    /^SQLITE_(CANTOPEN|NOTADB|PERM|AUTH|READONLY)/.test(code) ||
    // Node's system errors: ECONNREFUSED, ENOTFOUND, ETIMEDOUT, EHOSTUNREACH, ECONNRESET, EACCES…
    /^E[A-Z]+$/.test(code) ||
    // PostgreSQL: connection exceptions (08), invalid authorization (28), no such database (3D000),
    // the server starting up or shutting down (57P).
    /^(08|28)[0-9A-Z]{3}$|^3D000$|^57P0[1-3]$/.test(code);
  return opening ? error.message : null;
}

/**
 * `Cannot open the database (<file, or the PostgreSQL server>): <why>` when `error` is one of
 * `databaseOpenProblem`'s, for the CLI and the server to say in one line; else null.
 */
export function cannotOpenDatabase(url: string, error: unknown): string | null {
  const problem = databaseOpenProblem(error);
  if (problem === null) return null;
  const target = parseDatabaseUrl(url);
  const name = target.dialect === 'sqlite' ? target.file : 'the PostgreSQL server';
  return `Cannot open the database (${name}): ${problem}`;
}

/** pg's own connection failures, which carry no code. */
const PG_CONNECTION_MESSAGES = new Set([
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
  'timeout expired',
  // A client whose connection failed while checked out (a transaction cut between two statements):
  // its next statement, and the rollback whose error replaces the first, fail with this.
  'Client has encountered a connection error and is not queryable',
]);

/**
 * Whether a request failed because the database could not be reached or used just then (a PostgreSQL
 * server that went away, refused the connection or is restarting, no pooled connection within the
 * connect timeout, a SQLite file locked past its busy timeout or a full disk): the server is at fault,
 * for now, and a client should try again shortly, not be told of an internal error.
 */
export function databaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // Not 08P01 (protocol_violation: a statement with over 65,535 parameters, say) nor SQLITE_LOCKED (a
  // conflict within Docent's own connection): bugs, which a client retrying would only repeat.
  if (typeof code === 'string')
    return (
      /^SQLITE_(BUSY|FULL|IOERR)/.test(code) ||
      /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|ENOTFOUND|EAI_AGAIN)$/.test(code) ||
      (/^08[0-9A-Z]{3}$/.test(code) && code !== '08P01') ||
      /^57P0[1-3]$|^53[0-9A-Z]{3}$/.test(code)
    );
  return PG_CONNECTION_MESSAGES.has(error.message);
}
