import { loadConfig } from '../config.ts';
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
