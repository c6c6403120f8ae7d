import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { makeFolders } from './make-folders.ts';
import { migrationProvider } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.ts';

export type DialectName = 'sqlite' | 'postgres';

export type DatabaseTarget = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

/** The storage handle every repository takes first. */
export interface Storage {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Human-readable target without credentials, for logs. */
  describe: string;
  /**
   * SQLite only: the connection under Kysely, for synchronous statements on the request path. Use it
   * only while holding Kysely's connection (storage/write-unit.ts does), or it can interleave with an
   * open Kysely transaction.
   */
  sqlite?: SQLite.Database;
  /** PostgreSQL only: the connection pool's state now, for metrics. */
  poolStats?: () => { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export class DatabaseUrlError extends Error {
  override name = 'DatabaseUrlError';
}

/** `sqlite:<path>` (relative to the working directory, or `sqlite::memory:`) or `postgres://…`. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') throw new DatabaseUrlError('sqlite: needs a file path, e.g. sqlite:.docent/docent.db');
    return { dialect: 'sqlite', file };
  }
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url };
  throw new DatabaseUrlError(`Unsupported database URL "${redact(url)}": use sqlite:<path> or postgres://…`);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

export interface OpenOptions {
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /**
   * SQLite files: checkpoint the write-ahead log from a worker thread instead of inside commits
   * (wal-checkpointer.ts). Default false; a server turns it on, since its commits run on the request path.
   */
  backgroundCheckpoints?: boolean;
  /** PostgreSQL: how long opening waits for the server to answer (default `POSTGRES_CONNECT_TIMEOUT_MS`). */
  connectTimeoutMs?: number;
}

/**
 * How long opening a PostgreSQL database waits for the server to take a connection and answer it. The
 * pool's own connections have no such limit (it would also bound waits for a busy pool), so without it
 * a server whose packets are dropped held a start for the system's TCP timeout (about two minutes).
 */
export const POSTGRES_CONNECT_TIMEOUT_MS = 10_000;

export async function openStorage(url: string, options: OpenOptions = {}): Promise<Storage> {
  const target = parseDatabaseUrl(url);
  const storage =
    target.dialect === 'sqlite'
      ? openSqlite(target.file, options.backgroundCheckpoints ?? false)
      : await openPostgres(target.url, options.poolSize, options.connectTimeoutMs);
  if (options.migrate ?? true) {
    try {
      await migrate(storage);
    } catch (error) {
      await storage.close();
      throw error;
    }
  }
  return storage;
}

function openSqlite(file: string, backgroundCheckpoints: boolean): Storage {
  if (file !== ':memory:') makeFolders(path.dirname(path.resolve(file)));
  const connection = new SQLite(file);
  // The busy timeout covers a second process.
  connection.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  // WAL lets readers proceed while an ingestion writes.
  switchToWal(connection);
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  // SQLite's own lower() changes ASCII letters only, so a case-insensitive search (the analytics `q`
  // filter: lower(content) like the lowercased words) missed "ÉCRAN" for "écran". JavaScript's is
  // Unicode's, the same as the words are lowercased with, and PostgreSQL's under a UTF-8 locale. No index
  // or trigger uses lower(): one built with SQLite's would not match this one.
  connection.function('lower', { deterministic: true }, unicodeLower);
  let checkpointer: WalCheckpointer | undefined;
  if (backgroundCheckpoints && file !== ':memory:') {
    connection.pragma('wal_autocheckpoint = 0');
    // Should the worker fail, commits checkpoint again as SQLite does by default (every 1,000 pages).
    checkpointer = startWalCheckpointer(path.resolve(file), () => {
      if (connection.open) connection.pragma('wal_autocheckpoint = 1000');
    });
  }
  const cached = withStatementCache(connection);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
  return {
    db,
    dialect: 'sqlite',
    sqlite: cached,
    describe: `sqlite:${file}`,
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** How long a statement waits for another process's lock before it fails with "database is locked". */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * Turns a new file's journal to WAL. SQLite answers SQLITE_BUSY at once, without the busy timeout, when
 * another process is switching the same new file at that moment (two replicas' first start): this
 * waits and tries again, within the busy timeout. An existing WAL file needs no lock for it.
 */
function switchToWal(connection: SQLite.Database): void {
  const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      connection.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** SQL lower() with Unicode's case mapping; like SQLite's, null stays null and anything else is read as text. */
function unicodeLower(value: unknown): string | null {
  return value === null ? null : String(value).toLowerCase();
}

/** The PostgreSQL driver is loaded only for a PostgreSQL URL: a SQLite server never holds it. */
async function openPostgres(
  url: string,
  poolSize = 10,
  connectTimeoutMs = POSTGRES_CONNECT_TIMEOUT_MS,
): Promise<Storage> {
  const { default: pg } = await import('pg');
  // One connection first, with a time limit, so that a server that does not answer is said at once.
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  try {
    await probe.connect();
  } catch (error) {
    // pg's own timeout error has no code: given one, it is told as a database that cannot be opened.
    if (error instanceof Error && error.message === 'timeout expired')
      throw Object.assign(new Error(`no answer within ${connectTimeoutMs} ms`, { cause: error }), {
        code: 'ETIMEDOUT',
      });
    throw error;
  } finally {
    await probe.end().catch(() => {});
  }
  // The same limit for the pool's own connections, and for a request waiting for one: a server that
  // stops answering fails requests (503) instead of holding them until TCP gives up.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
  });
  // An idle client losing its connection emits 'error' on the pool; without a listener that kills the process.
  pool.on('error', () => {});
  // So does a client in use (the pool listens only while it is idle): its query fails with the error
  // anyway, and the pool drops the client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    describe: redact(url),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}

/** Distinct SQL texts kept prepared; the app issues a few dozen, bulk inserts vary with batch size. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew; on the request path that is a measurable share of each SQLite
 * query. better-sqlite3 statements are reusable (Kysely runs them synchronously with `all`/`run`), so
 * the same SQL text gets the same statement. Bounded, oldest evicted first.
 */
function withStatementCache(connection: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = connection.prepare.bind(connection);
  return new Proxy(connection, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver);
      return (sqlText: string) => {
        let statement = cache.get(sqlText);
        if (statement === undefined) {
          statement = prepare(sqlText);
          if (cache.size >= STATEMENT_CACHE_SIZE) {
            const oldest = cache.keys().next().value;
            if (oldest !== undefined) cache.delete(oldest);
          }
          cache.set(sqlText, statement);
        }
        return statement;
      };
    },
  });
}

/**
 * Runs `read` in one transaction that sees one committed state of the database throughout (SQLite's
 * transactions always do; PostgreSQL needs `repeatable read`), for reads that must not mix two writes.
 */
export function readSnapshot<T>(storage: Storage, read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const run = storage.db.transaction();
  return (storage.dialect === 'postgres' ? run.setIsolationLevel('repeatable read') : run).execute(read);
}

/** The database was migrated by a newer Docent: this version does not know all its migrations. */
export class DatabaseFromNewerVersionError extends Error {
  override name = 'DatabaseFromNewerVersionError';
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(
      `this database was migrated by a newer version of Docent (it has migration ${migration}, which this version does not have): run that version, or restore the backup taken before the upgrade`,
      { cause },
    );
  }
}

/**
 * Applies pending migrations. On SQLite the whole run is one `BEGIN IMMEDIATE` transaction: Kysely
 * runs SQLite migrations statement by statement (it assumes no transactional DDL), so a process dying
 * in a table rebuild (0018) left it half done, and two processes starting at once ran the same
 * migration twice. Now a failure leaves the database as it was, and a second process waits for the
 * first (up to the busy timeout) and then finds nothing to do. PostgreSQL's migrations are
 * transactional in Kysely already, under its own lock.
 */
export async function migrate(storage: Storage): Promise<void> {
  const migrator = new Migrator({ db: storage.db, provider: migrationProvider });
  const raw = storage.dialect === 'sqlite' ? storage.sqlite : undefined;
  raw?.prepare('begin immediate').run();
  let error: unknown;
  try {
    ({ error } = await migrator.migrateToLatest());
  } catch (thrown) {
    error = thrown ?? new Error('migration failed');
  }
  if (raw?.inTransaction) raw.prepare(error === undefined ? 'commit' : 'rollback').run();
  if (error === undefined) return;
  const missing =
    error instanceof Error ? /previously executed migration (\S+) is missing/.exec(error.message) : null;
  throw missing === null ? error : new DatabaseFromNewerVersionError(missing[1] as string, error);
}

/** Cheap round trip for readiness checks. */
export async function ping(storage: Storage): Promise<void> {
  await sql`select 1`.execute(storage.db);
}
