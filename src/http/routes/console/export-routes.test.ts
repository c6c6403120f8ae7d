import { describe, expect, it, vi } from 'vitest';
import { createTenant } from '../../../limits/limits-fixtures.ts';
import { signInToConsole } from '../../../tenancy/console-sessions.ts';
import { useOwnerApp } from '../../../testing/test-app.ts';

/** An export far longer than anyone reads: how far it was read, and whether it was ended. */
const endless = vi.hoisted(() => ({ read: 0, ended: false }));

vi.mock('../../../analytics/export.ts', async (importActual) => ({
  ...(await importActual<typeof import('../../../analytics/export.ts')>()),
  async *exportConversations() {
    try {
      for (let i = 0; i < 10_000; i++) {
        endless.read++;
        yield `row ${i},${'x'.repeat(1_000)}\r\n`;
        // A batch read from the database takes a moment.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      endless.ended = true;
    }
  },
}));

describe("the console's export", () => {
  const owner = useOwnerApp('owner');

  it('stops reading when the browser goes away (a cancelled download), as the admin API export does', async () => {
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    const response = await owner.app.request('http://localhost/console/export/conversations.csv', {
      headers: { Cookie: `docent_console=${secret}` },
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    for (let i = 0; i < 50 && !endless.ended; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(endless.ended).toBe(true);
    expect(endless.read).toBeLessThan(100);
  });

  it("answers 404 for another organization's site, or none, as the admin API does (not an empty file)", async () => {
    const other = await createTenant(owner.database.storage, { domain: 'rival' });
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    for (const site of [other.site.domain, 'nowhere']) {
      const response = await owner.app.request(`http://localhost/console/export/feedback.csv?site=${site}`, {
        headers: { Cookie: `docent_console=${secret}` },
      });
      expect(response.status, site).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it("names, types and keeps from caches its files as the admin API's export of the same filter does", async () => {
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    for (const file of ['conversations.jsonl', 'feedback.csv']) {
      const query = '?from=2026-11-01&to=2026-11-30';
      const fromConsole = await owner.app.request(`http://localhost/console/export/${file}${query}`, {
        headers: { Cookie: `docent_console=${secret}` },
      });
      const fromApi = await owner.app.request(`http://localhost/v1/admin/analytics/export/${file}${query}`, {
        headers: { Authorization: `Bearer ${owner.tenant.adminKey}` },
      });
      expect(fromConsole.status, file).toBe(200);
      expect(fromApi.status, file).toBe(200);
      for (const header of ['Content-Type', 'Content-Disposition', 'Cache-Control'])
        expect(fromConsole.headers.get(header), `${file} ${header}`).toBe(fromApi.headers.get(header));
      expect(fromConsole.headers.get('Content-Disposition')).toMatch(/-2026-11-01-2026-11-30\./);
      expect(fromConsole.headers.get('Cache-Control')).toBe('no-store');
      await fromConsole.body?.cancel();
      await fromApi.body?.cancel();
    }
  });
});
