import { type IngestionResult, ingestSite } from '../ingest/ingest-site.ts';
import type { LoadProgress } from '../ingest/types.ts';
import type { Storage } from '../storage/database.ts';
import { createApiKey } from './api-keys.ts';
import { createOrganization, type Organization } from './organizations.ts';
import { createSite, parseBaseUrl, type Site } from './sites.ts';

export interface BootstrapResult {
  organization: Organization;
  site: Site;
  assistantKey: string;
  ingestion: IngestionResult;
}

/** Organization + site + first ingestion + an assistant key: what `init` and the demo seed do. */
export async function bootstrapSite(
  storage: Storage,
  input: {
    domain: string;
    docsDir: string;
    organizationName?: string;
    siteName?: string;
    baseUrl?: string | null;
    onProgress?: LoadProgress;
  },
): Promise<BootstrapResult> {
  // Before the first write: a bad base URL must not leave an organization without its site behind.
  const baseUrl = parseBaseUrl(input.baseUrl);
  const organization = await createOrganization(storage, { name: input.organizationName ?? input.domain });
  const site = await createSite(storage, {
    organizationId: organization.id,
    domain: input.domain,
    name: input.siteName ?? input.domain,
    docsDir: input.docsDir,
    baseUrl,
  });
  const ingestion = await ingestSite(
    storage,
    site.id,
    input.docsDir,
    input.onProgress ? { onProgress: input.onProgress } : {},
  );
  const { key } = await createApiKey(storage, {
    organizationId: organization.id,
    siteId: site.id,
    kind: 'assistant',
    name: 'default',
  });
  return { organization, site, assistantKey: key, ingestion };
}
