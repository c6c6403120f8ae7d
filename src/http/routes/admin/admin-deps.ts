import type { Storage } from '../../../storage/database.ts';
import type { IngestionRunner } from '../../../tenancy/ingestion-runner.ts';

export interface AdminDeps {
  storage: Storage;
  /** See `resolveDocsDirUnderRoot`; null: the API cannot name docs folders. */
  docsRoot: string | null;
  ingestions: IngestionRunner;
}
