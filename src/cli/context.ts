import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import type { Warning } from '../ingest/types.ts';
import { type EmbeddingModels, embeddingModelsFor } from '../search/embeddings/embedding-model.ts';
import { openStorage, parseDatabaseUrl, type Storage } from '../storage/database.ts';
import { cannotOpenDatabase } from '../storage/database-open-problem.ts';

export interface GlobalOptions {
  databaseUrl?: string;
  json?: boolean;
}

/** An error the CLI reports as one line on stderr with exit code 1 (no stack: it is the user's input). */
export class CliError extends Error {
  override name = 'CliError';
}

/** `dir` resolved, or a CliError naming it as given when it is not a directory. */
export function docsDirectory(dir: string): string {
  const resolved = path.resolve(dir);
  if (!fs.existsSync(resolved) || !fs.statSync(resolved).isDirectory())
    throw new CliError(`${dir} is not a directory`);
  return resolved;
}

export function databaseUrlFrom(options: GlobalOptions): string {
  return options.databaseUrl ?? loadConfig().databaseUrl;
}

/** `url`, unless it names a SQLite file that does not exist and the command may not create one. */
export function existingDatabase(url: string, create: boolean): string {
  const target = parseDatabaseUrl(url);
  if (create || target.dialect !== 'sqlite' || target.file === ':memory:' || fs.existsSync(target.file))
    return url;
  throw new CliError(
    `No database at ${target.file}: create one with \`docent init\` (or \`npm start\`), or give the server's with --database-url or DATABASE_URL`,
  );
}

/** The embeddings models `DOCENT_EMBEDDINGS` names (semantic retrieval); null when it is not set. */
export function embeddingModelsFromEnv(): EmbeddingModels | null {
  return embeddingModelsFor(loadConfig().embeddings);
}

/**
 * Opens the database of `--database-url` (else `DATABASE_URL`, else the default file). Only `init`
 * (`create`) and `serve` (which opens it as the server does) make a SQLite file that does not exist yet:
 * any other command on a missing file is a mistyped path or a server using another database, and would
 * otherwise leave an empty database behind.
 */
export async function withStorage<T>(
  options: GlobalOptions,
  run: (storage: Storage) => Promise<T>,
  { create = false }: { create?: boolean } = {},
): Promise<T> {
  const storage = await openCliStorage(options, create);
  try {
    return await run(storage);
  } finally {
    await storage.close();
  }
}

/**
 * The database of `--database-url` (see `withStorage`), or a CliError saying in one line why it cannot be
 * opened.
 */
export async function openCliStorage(options: GlobalOptions, create: boolean): Promise<Storage> {
  const url = existingDatabase(databaseUrlFrom(options), create);
  try {
    return await openStorage(url);
  } catch (error) {
    const cannotOpen = cannotOpenDatabase(url, error);
    if (cannotOpen === null) throw error;
    throw new CliError(cannotOpen);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Warnings printed after an ingestion's summary line; the rest are counted (`--json` has them all). */
const PRINTED_WARNINGS = 20;

/** An ingestion's warnings, one line each with file and line, for `init` and `ingest`. */
export function printWarnings(warnings: readonly Warning[]): void {
  for (const w of warnings.slice(0, PRINTED_WARNINGS))
    process.stdout.write(`  warning: ${w.file}${w.line ? `:${w.line}` : ''}: ${w.message}\n`);
  if (warnings.length > PRINTED_WARNINGS)
    process.stdout.write(`  … ${warnings.length - PRINTED_WARNINGS} more warnings\n`);
}
