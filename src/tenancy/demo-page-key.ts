import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';
import { createApiKey } from './api-keys.ts';
import { getSiteByDomain } from './sites.ts';

/** Name of the key the demo page embeds; listed under this name with the site's other keys. */
export const DEMO_PAGE_KEY_NAME = 'demo page';

/**
 * A fresh assistant key for the demo page, made at each start: keys are stored hashed, so the last
 * one cannot be read back. The previous demo page keys are revoked, so at most one is live. Undefined
 * when the server has no such site.
 */
export async function mintDemoPageKey(storage: Storage, domain: string): Promise<string | undefined> {
  const site = await getSiteByDomain(storage, domain);
  if (!site) return undefined;
  await storage.db
    .updateTable('api_keys')
    .set({ revoked_at: nowIso() })
    .where('site_id', '=', site.id)
    .where('name', '=', DEMO_PAGE_KEY_NAME)
    .where('revoked_at', 'is', null)
    .execute();
  const created = await createApiKey(storage, {
    organizationId: site.organization_id,
    siteId: site.id,
    kind: 'assistant',
    name: DEMO_PAGE_KEY_NAME,
    // Made by the server itself at every start: the 31st start within an hour (a process manager
    // restarting it, a developer's edit-and-restart loop), or a start after the organization made its
    // 30 keys of the hour, must not fail on the organization's cap.
    uncapped: true,
  });
  return created.key;
}
