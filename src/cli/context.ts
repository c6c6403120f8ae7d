import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import type { Warning } from '../ingest/types.ts';
import { type EmbeddingModels, embeddingModelsFor } from '../search/embeddings/embedding-model.ts';
import { openStorage, type Storage } from '../storage/database.ts';

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

/** The embeddings models `DOCENT_EMBEDDINGS` names (semantic retrieval); null when it is not set. */
export function embeddingModelsFromEnv(): EmbeddingModels | null {
  return embeddingModelsFor(loadConfig().embeddings);
}

export async function withStorage<T>(
  options: GlobalOptions,
  run: (storage: Storage) => Promise<T>,
): Promise<T> {
  const storage = await openStorage(databaseUrlFrom(options));
  try {
    return await run(storage);
  } finally {
    await storage.close();
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
