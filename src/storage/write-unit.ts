import { type Kysely, sql } from 'kysely';
import type { DialectName, Storage } from './database.ts';
import { bind, executePrecompiled, type Precompiled } from './precompiled.ts';
import type { Database } from './schema.ts';

/**
 * One write transaction, with the statements of the request path precompiled (storage/precompiled.ts).
 * `db` is the same transaction for anything else.
 */
export interface WriteUnit {
  db: Kysely<Database>;
  /** For the few statements that differ (a row lock PostgreSQL needs and SQLite's serial units do not). */
  dialect: DialectName;
  get<P, R>(statement: Precompiled<P, R>, params: P): Promise<R | undefined>;
  all<P, R>(statement: Precompiled<P, R>, params: P): Promise<R[]>;
  run<P, R>(statement: Precompiled<P, R>, params: P): Promise<void>;
}

export interface WriteUnitOptions {
  /**
   * Serialise with every other unit locking the same organization, so a read-check-write inside
   * (a balance, a count) is exact.
   */
  lockOrganizationId?: string;
}

/**
 * Runs `work` in one write transaction.
 *
 * PostgreSQL: a Kysely transaction; with `lockOrganizationId` the organization row is locked with
 * `SELECT … FOR UPDATE` first, and other organizations proceed.
 *
 * SQLite: units are group-committed. A unit is queued; once per turn of the event loop the queue is
 * drained in one `BEGIN IMMEDIATE` transaction, each unit after the first inside its own savepoint,
 * one after the other, and the promises settle after the `COMMIT`. So every unit is serialised (which is also the
 * organization lock) and sees the writes of the units before it, a failing unit rolls back only its
 * own savepoint, and nothing is reported written before it is committed. The commit is most of what a
 * small SQLite write transaction costs (measured: ~40 µs of a ~50 µs single-row insert), so concurrent
 * requests share it. Kysely's connection is held for the drain, so a Kysely transaction elsewhere (an
 * ingestion) never interleaves; the write lock taken up front serialises other processes on the same
 * file (they wait up to the busy timeout).
 *
 * `work` must use the unit it is given (on SQLite a query through `storage.db` would wait for the
 * connection the drain holds), must not open another unit, and should only run statements: the units
 * queued behind it wait for it.
 */
export async function withWriteUnit<T>(
  storage: Storage,
  options: WriteUnitOptions,
  work: (unit: WriteUnit) => Promise<T>,
): Promise<T> {
  const raw = storage.sqlite;
  if (storage.dialect === 'sqlite' && raw !== undefined) {
    let group = groups.get(storage);
    if (group === undefined) {
      group = new CommitGroup(storage, raw);
      groups.set(storage, group);
    }
    return group.run(work);
  }
  return storage.db.transaction().execute(async (trx) => {
    if (options.lockOrganizationId !== undefined) {
      await sql`select id from organizations where id = ${options.lockOrganizationId} for update`.execute(
        trx,
      );
    }
    const unit: WriteUnit = {
      db: trx,
      dialect: storage.dialect,
      get: async (statement, params) =>
        (await executePrecompiled(trx, storage.dialect, statement, params))[0],
      all: (statement, params) => executePrecompiled(trx, storage.dialect, statement, params),
      run: async (statement, params) => {
        await executePrecompiled(trx, storage.dialect, statement, params);
      },
    };
    return work(unit);
  });
}

/** Units committed in one SQLite transaction at most; more wait for the next one. */
const MAX_UNITS_PER_COMMIT = 64;

interface QueuedUnit {
  work: (unit: WriteUnit) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const groups = new WeakMap<Storage, CommitGroup>();

class CommitGroup {
  readonly #queue: QueuedUnit[] = [];
  #scheduled = false;
  #draining = false;

  constructor(
    private readonly storage: Storage,
    private readonly raw: NonNullable<Storage['sqlite']>,
  ) {}

  run<T>(work: (unit: WriteUnit) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#draining) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      await this.storage.db.connection().execute(async (db) => {
        const unit = sqliteUnit(db, this.raw);
        while (this.#queue.length > 0)
          await this.#commitBatch(unit, this.#queue.splice(0, MAX_UNITS_PER_COMMIT));
      });
    } catch (error) {
      // Acquiring the connection failed (the database is closing): nothing queued can be written.
      for (const queued of this.#queue.splice(0)) queued.reject(error);
    } finally {
      this.#draining = false;
      if (this.#queue.length > 0) this.#schedule();
    }
  }

  async #commitBatch(unit: WriteUnit, batch: QueuedUnit[]): Promise<void> {
    const raw = this.raw;
    let done: { queued: QueuedUnit; value: unknown }[] = [];
    const failAll = (error: unknown): void => {
      for (const d of done) d.queued.reject(error);
      done = [];
    };
    try {
      raw.prepare('begin immediate').run();
    } catch (error) {
      for (const queued of batch) queued.reject(error);
      return;
    }
    for (const queued of batch) {
      if (!raw.inTransaction) {
        try {
          raw.prepare('begin immediate').run();
        } catch (error) {
          queued.reject(error);
          continue;
        }
      }
      // The first unit of a transaction needs no savepoint: if it fails, the whole transaction goes.
      const first = done.length === 0;
      if (!first) raw.prepare('savepoint unit').run();
      try {
        const value = await queued.work(unit);
        if (!first) raw.prepare('release unit').run();
        done.push({ queued, value });
      } catch (error) {
        if (first) {
          if (raw.inTransaction) raw.prepare('rollback').run();
        } else if (raw.inTransaction) {
          raw.prepare('rollback to unit').run();
          raw.prepare('release unit').run();
        } else {
          // SQLite rolled the whole transaction back (e.g. disk full): the units before went with it.
          failAll(error);
        }
        queued.reject(error);
      }
    }
    if (!raw.inTransaction) return;
    try {
      raw.prepare('commit').run();
    } catch (error) {
      if (raw.inTransaction) raw.prepare('rollback').run();
      failAll(error);
      return;
    }
    for (const d of done) d.queued.resolve(d.value);
  }
}

function sqliteUnit(db: Kysely<Database>, raw: NonNullable<Storage['sqlite']>): WriteUnit {
  const exec = <P, R>(statement: Precompiled<P, R>, params: P, mode: 'get' | 'all' | 'run'): R[] => {
    const { sql: text, values } = bind(statement, db, 'sqlite', params);
    const prepared = raw.prepare(text);
    if (!prepared.reader) {
      prepared.run(...values);
      return [];
    }
    return mode === 'get' ? [prepared.get(...values) as R] : (prepared.all(...values) as R[]);
  };
  return {
    db,
    dialect: 'sqlite',
    get: async (statement, params) => exec(statement, params, 'get')[0],
    all: async (statement, params) => exec(statement, params, 'all'),
    run: async (statement, params) => {
      exec(statement, params, 'run');
    },
  };
}
