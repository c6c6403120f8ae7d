import type { ModelInUse } from '../../../assistant/model-provider.ts';
import type { SiteSearch } from '../../../search/site-search.ts';
import type { Storage } from '../../../storage/database.ts';
import type { IngestionRunner } from '../../../tenancy/ingestion-runner.ts';

export interface AdminDeps {
  storage: Storage;
  /** See `resolveDocsDirUnderRoot`; null: the API cannot name docs folders. */
  docsRoot: string | null;
  ingestions: IngestionRunner;
  /** The server's site search: a question group's closest pages. */
  search: SiteSearch;
  /** Which model writes a site's answers here (AppDeps.modelInUse); null: not told. */
  modelInUse: ((siteModel: string | null) => ModelInUse) | null;
}
