import { describe, expect, it } from 'vitest';
import { getSiteByDomain } from '../../../tenancy/sites.ts';
import { dialects } from '../../../testing/databases.ts';
import { useOwnerApp } from '../../../testing/test-app.ts';

/** Base URLs become the href of every citation readers get: only http: and https: may be stored. */
const BAD_BASE_URLS = [
  'javascript:alert(1)',
  'JavaScript:alert(document.cookie)//https://docs.example.com',
  'data:text/html,<script>alert(1)</script>',
  'ftp://docs.example.com',
  'java\tscript:alert(1)',
  ' https://docs.example.com',
  'https://docs.example.com/a b',
  'https:docs.example.com',
  'https://',
  'vbscript:msgbox(1)',
];

type Json = {
  error?: { code: string; message?: string; details?: { path: string; message: string }[] };
} & Record<string, unknown>;

describe.each(dialects)('site base URLs in the admin API on %s', (dialect) => {
  const owner = useOwnerApp('urls', { dialect });

  const call = async (
    method: string,
    url: string,
    body: unknown,
  ): Promise<{ status: number; json: Json }> => {
    const response = await owner.app.request(url, {
      method,
      headers: { Authorization: `Bearer ${owner.tenant.adminKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };

  const expectRefused = (result: { status: number; json: Json }, field: string, label: string): void => {
    expect(result.status, label).toBe(400);
    expect(result.json.error?.code, label).toBe('invalid_request');
    expect(result.json.error?.details, label).toEqual([expect.objectContaining({ path: field })]);
  };

  it('tells an owner of a site without a folder, on a server that takes none over the API, how to ingest it', async () => {
    const result = await call('POST', '/v1/admin/sites/urls/ingestions', {});
    expect(result.status).toBe(400);
    expect(result.json.error?.message).toMatch(
      /takes none over the API \(its operator sets DOCENT_DOCS_ROOT.*docent ingest <dir> --site urls/,
    );
  });

  it('creates a site only with an http: or https: base URL', async () => {
    for (const [i, baseUrl] of BAD_BASE_URLS.entries()) {
      const result = await call('POST', '/v1/admin/sites', { domain: `bad-${i}`, baseUrl });
      expectRefused(result, 'baseUrl', JSON.stringify(baseUrl));
      expect(await getSiteByDomain(owner.database.storage, `bad-${i}`)).toBeUndefined();
    }
    const https = await call('POST', '/v1/admin/sites', {
      domain: 'good',
      baseUrl: 'https://docs.example.com/',
    });
    expect(https.status).toBe(201);
    expect(https.json.baseUrl).toBe('https://docs.example.com');
    const http = await call('POST', '/v1/admin/sites', {
      domain: 'local',
      baseUrl: 'http://localhost:3000/docs',
    });
    expect(http.status).toBe(201);
    expect(http.json.baseUrl).toBe('http://localhost:3000/docs');
  });

  it('changes a base URL only to an http: or https: one, and leaves the stored one alone otherwise', async () => {
    for (const baseUrl of BAD_BASE_URLS) {
      expectRefused(
        await call('PATCH', '/v1/admin/sites/urls', { baseUrl }),
        'baseUrl',
        JSON.stringify(baseUrl),
      );
    }
    expect((await getSiteByDomain(owner.database.storage, 'urls'))?.base_url).toBeNull();
    const changed = await call('PATCH', '/v1/admin/sites/urls', {
      baseUrl: 'https://docs.urls.example/guide/',
    });
    expect(changed.status).toBe(200);
    expect(changed.json.baseUrl).toBe('https://docs.urls.example/guide');
    expectRefused(
      await call('PATCH', '/v1/admin/sites/urls', { baseUrl: 'javascript:alert(1)' }),
      'baseUrl',
      'js',
    );
    expect((await getSiteByDomain(owner.database.storage, 'urls'))?.base_url).toBe(
      'https://docs.urls.example/guide',
    );
    const cleared = await call('PATCH', '/v1/admin/sites/urls', { baseUrl: null });
    expect(cleared.status).toBe(200);
    expect(cleared.json.baseUrl).toBeNull();
  });

  it('holds allowed origins to the same schemes', async () => {
    for (const origin of ['javascript:alert(1)', 'data:text/html,x', 'ftp://docs.example.com', 'null']) {
      expectRefused(
        await call('PATCH', '/v1/admin/sites/urls', { allowedOrigins: [origin] }),
        'allowedOrigins.0',
        origin,
      );
    }
  });
});
