import { CompiledQuery, type Kysely } from 'kysely';
import type { DialectName } from './database.ts';
import type { Database } from './schema.ts';

/**
 * Statements on the request path, built once with Kysely's typed builders and compiled once per
 * database handle, then run with new parameters. Building and compiling a Kysely query costs more CPU
 * than SQLite takes to run it, and the assistant route runs about ten per answer (measured: query
 * building was a fifth of the route's CPU before these).
 *
 * A parameter is a named placeholder in the builder; compiling records which bound value it became,
 * so running is just the compiled SQL with the values in that order.
 */
export type ParamsOf<P> = <K extends keyof P & string>(name: K) => P[K];

interface Compilable<R> {
  compile(): CompiledQuery<R>;
}

interface Template {
  sql: string;
  /** Per bound value: the parameter name, or a constant the builder bound itself (e.g. `'charge'`). */
  slots: ({ name: string } | { value: unknown })[];
}

export interface Precompiled<P, R> {
  readonly build: (db: Kysely<Database>, param: ParamsOf<P>) => Compilable<R>;
  /** The compiled SQL depends only on the dialect, not on the handle (a transaction compiles alike). */
  readonly templates: Map<DialectName, Template>;
}

const MARK = '\u0000param:';

export function precompile<P, R = never>(
  build: (db: Kysely<Database>, param: ParamsOf<P>) => Compilable<R>,
): Precompiled<P, R> {
  return { build, templates: new Map() };
}

function templateFor<P, R>(
  statement: Precompiled<P, R>,
  db: Kysely<Database>,
  dialect: DialectName,
): Template {
  let template = statement.templates.get(dialect);
  if (template === undefined) {
    const param = ((name: string) => `${MARK}${name}`) as ParamsOf<P>;
    const compiled = statement.build(db, param).compile();
    template = {
      sql: compiled.sql,
      slots: compiled.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { value },
      ),
    };
    statement.templates.set(dialect, template);
  }
  return template;
}

/** The statement's SQL and its values in bind order; `db` (of `dialect`) compiles it on first use. */
export function bind<P, R>(
  statement: Precompiled<P, R>,
  db: Kysely<Database>,
  dialect: DialectName,
  params: P,
): { sql: string; values: unknown[] } {
  const template = templateFor(statement, db, dialect);
  const record = params as Record<string, unknown>;
  const values = template.slots.map((slot) => {
    if (!('name' in slot)) return slot.value;
    const value = record[slot.name];
    if (value === undefined) throw new Error(`missing parameter "${slot.name}"`);
    return value;
  });
  return { sql: template.sql, values };
}

/** Runs a precompiled statement through Kysely's own connection handling (any dialect). */
export async function executePrecompiled<P, R>(
  db: Kysely<Database>,
  dialect: DialectName,
  statement: Precompiled<P, R>,
  params: P,
): Promise<R[]> {
  const { sql, values } = bind(statement, db, dialect, params);
  const result = await db.executeQuery<R>(CompiledQuery.raw(sql, values));
  return result.rows;
}
