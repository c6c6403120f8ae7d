import { describe, expect, it } from 'vitest';
import { getRetentionDays } from '../../../analytics/retention.ts';
import { createTenant } from '../../../limits/limits-fixtures.ts';
import { findConsoleSession, signInToConsole } from '../../../tenancy/console-sessions.ts';
import { dialects } from '../../../testing/databases.ts';
import { useOwnerApp } from '../../../testing/test-app.ts';
import { CONSOLE_HEADERS } from './console-guard.ts';
import { MAX_CONSOLE_FORM_BYTES } from './console-routes.ts';
import { backToInbox } from './feedback-screen.tsx';

describe('console errors', () => {
  const owner = useOwnerApp('owner');

  it('are a page with a way back in a browser, and the JSON error body otherwise', async () => {
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    const headers = { Cookie: `docent_console=${secret}` };
    for (const path of ['/console/conversations/thr_gone', '/console/sites/elsewhere', '/console/nowhere']) {
      const page = await owner.app.request(`http://localhost${path}`, {
        headers: { ...headers, Accept: 'text/html,application/xhtml+xml' },
      });
      expect(page.status, path).toBe(404);
      expect(page.headers.get('Content-Type'), path).toContain('text/html');
      const text = await page.text();
      expect(text, path).toContain('<a href="/console">Back to the console</a>');
      // Its content in a main landmark, as every other console page's is.
      expect(text, path).toMatch(/<main>\s*<h1>Not found<\/h1>[\s\S]*<\/main>/);
      expect(text, path).toContain(`Request id <code>${page.headers.get('X-Request-Id')}</code>`);
      const json = await owner.app.request(`http://localhost${path}`, { headers });
      expect(json.headers.get('Content-Type'), path).toContain('application/json');
      expect(((await json.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    // A message with markup in it is shown as text.
    const odd = await owner.app.request('http://localhost/console/sites/%3Cb%3Ex', {
      headers: { ...headers, Accept: 'text/html' },
    });
    const oddText = await odd.text();
    expect(oddText).not.toContain('<b>x');
    expect(oddText).toContain('&lt;b&gt;x');
    // A form a browser sent that fails (its CSRF token missing) is a page too.
    const refused = await owner.app.request('http://localhost/console/keys', {
      method: 'POST',
      headers: {
        ...headers,
        Accept: 'text/html',
        Origin: 'http://localhost',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'kind=admin',
    });
    expect(refused.status).toBe(403);
    const refusedText = await refused.text();
    expect(refusedText).toContain('Back to the console');
    // Refused, not failed: the heading says which.
    expect(refusedText).toContain('<h1>Not allowed</h1>');
    // The address with a slash after it, as typed or bookmarked, is the screen.
    for (const [typed, screen] of [
      ['/console/', '/console'],
      ['/console/keys/', '/console/keys'],
    ]) {
      const slashed = await owner.app.request(`http://localhost${typed}`, { headers });
      expect(slashed.status, typed).toBe(301);
      expect(new URL(slashed.headers.get('Location') ?? '', 'http://localhost').pathname, typed).toBe(screen);
    }
  });

  it("name a site filter that is not the organization's, not 'All sites' over an empty page", async () => {
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    const headers = { Cookie: `docent_console=${secret}` };
    await createTenant(owner.database.storage, { domain: 'neighbour' });
    const screens = ['/console', '/console/conversations', '/console/gaps', '/console/questions'];
    for (const path of [...screens, '/console/pages', '/console/feedback']) {
      // A site that is not there, or one of another organization: the same words.
      for (const site of ['elsewhere', 'neighbour']) {
        const page = await owner.app.request(`http://localhost${path}?site=${site}`, { headers });
        expect(page.status, path).toBe(200);
        expect(await page.text(), path).toContain(
          `this organization has no site &quot;${site}&quot;, so nothing matches`,
        );
      }
      const own = await owner.app.request(`http://localhost${path}?site=owner`, { headers });
      expect(await own.text(), path).not.toContain('this organization has no site');
    }
  });

  it("say what is wrong with a filter in the form's words, and what is shown instead", async () => {
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    const headers = { Cookie: `docent_console=${secret}` };
    const backwards = await owner.app.request(
      'http://localhost/console/conversations?from=2026-11-20&to=2026-11-10',
      { headers },
    );
    expect(backwards.status).toBe(200);
    expect(await backwards.text()).toContain('To: must be after From. Showing the last 7 days instead.');
    const half = await owner.app.request('http://localhost/console/gaps?from=2026-11-20', { headers });
    expect(await half.text()).toContain('To: From and To go together. Showing the last 7 days instead.');
  });

  it('shorten a long first question without cutting an emoji in half', async () => {
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    // 139 characters, then an emoji (two UTF-16 units) across the list's 140th.
    const question = `${'ingest '.repeat(19)}abcdef🎉 and more words after it`;
    const asked = await owner.app.request('http://localhost/v2/assistant/owner/message', {
      method: 'POST',
      headers: { Authorization: `Bearer ${owner.tenant.assistantKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        fp: 'emoji-reader',
        messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: question }] }],
      }),
    });
    expect(asked.status).toBe(200);
    await asked.text();
    const list = await (
      await owner.app.request('http://localhost/console/conversations', {
        headers: { Cookie: `docent_console=${secret}` },
      })
    ).text();
    expect(list).toContain('abcdef</a>');
    expect(list).not.toContain('\uFFFD');
  });

  it("carry the console's security headers, refusals and failures included", async () => {
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    const form = { Origin: 'http://localhost', 'Content-Type': 'application/x-www-form-urlencoded' };
    const responses = [
      // A form without its CSRF token, one from another site, one without a session, one too large.
      await owner.app.request('http://localhost/console/keys', {
        method: 'POST',
        headers: { Cookie: `docent_console=${secret}`, Accept: 'text/html', ...form },
        body: 'kind=admin',
      }),
      await owner.app.request('http://localhost/console/keys', {
        method: 'POST',
        headers: { Cookie: `docent_console=${secret}`, ...form, Origin: 'https://evil.example' },
        body: 'kind=admin',
      }),
      await owner.app.request('http://localhost/console/keys', {
        method: 'POST',
        headers: form,
        body: 'kind=admin',
      }),
      await owner.app.request('http://localhost/console/login', {
        method: 'POST',
        headers: { ...form, 'Content-Length': String(MAX_CONSOLE_FORM_BYTES + 1) },
        body: `key=${'x'.repeat(MAX_CONSOLE_FORM_BYTES + 1 - 4)}`,
      }),
    ];
    expect(responses.map((r) => r.status)).toEqual([403, 403, 401, 413]);
    for (const response of responses)
      for (const [name, value] of Object.entries(CONSOLE_HEADERS))
        expect(response.headers.get(name), `${response.status} ${name}`).toBe(value);
  });

  it("refuse to revoke the session's own key and a retention that is not a plain number", async () => {
    const { secret, session } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    const post = (path: string, body: string) =>
      owner.app.request(`http://localhost${path}`, {
        method: 'POST',
        headers: {
          Cookie: `docent_console=${secret}`,
          Origin: 'http://localhost',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: `_csrf=${session.csrfToken}&${body}`,
      });
    const own = await post(`/console/keys/${session.key.id}/revoke`, '');
    expect(own.status).toBe(409);
    expect(((await own.json()) as { error: { message: string } }).error.message).toBe(
      "This session's own key cannot be revoked from this session: sign in with another admin key to revoke it",
    );
    expect((await findConsoleSession(owner.database.storage, secret))?.key.id).toBe(session.key.id);
    for (const days of ['0x10', '1e1', '0b11', '16.0', '-3']) {
      const refused = await post('/console/organization/retention', `days=${encodeURIComponent(days)}`);
      expect(refused.status, days).toBe(400);
      // The usage page again, the refusal at the field, with what was typed.
      const page = await refused.text();
      expect(page, days).toContain('<h1>Plan and usage</h1>');
      expect(page, days).toMatch(
        new RegExp(
          `value="${days.replace('.', '\\.')}"[^>]*aria-invalid="true" aria-describedby="retention-error"`,
        ),
      );
      expect(page, days).toMatch(/id="retention-error"[^>]*>Keep conversations/);
    }
    expect(await getRetentionDays(owner.database.storage, owner.tenant.organization.id)).toBeNull();
    expect((await post('/console/organization/retention', 'days=16')).status).toBe(303);
    expect(await getRetentionDays(owner.database.storage, owner.tenant.organization.id)).toBe(16);
    // A key's name is one line, as the admin API and the CLI take it.
    const forged = await post('/console/keys', `kind=admin&name=${encodeURIComponent('ci\nkey_x  admin')}`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('The name must not hold control characters or line breaks.');
  });

  it('go back to the feedback inbox as it was filtered, on this server only', () => {
    expect(backToInbox('http://localhost/console/feedback?vote=down&page=2')).toBe(
      '/console/feedback?vote=down&page=2',
    );
    for (const referer of [
      undefined,
      'not a url',
      'http://evil.example/elsewhere',
      'http://localhost/console/keys',
    ])
      expect(backToInbox(referer), referer).toBe('/console/feedback');
    // Another host's inbox path keeps only the path: the redirect stays on this server.
    expect(backToInbox('http://evil.example/console/feedback?x')).toBe('/console/feedback?x');
  });
  it('answer a form body that claims to be multipart but is none with 400, not 500 (sign-in too)', async () => {
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    const session = await findConsoleSession(owner.database.storage, secret);
    const forms = [
      '/console/login',
      '/console/keys',
      '/console/organization/retention',
      '/console/feedback/resolve',
      '/console/sites/owner/settings',
    ];
    for (const path of forms)
      for (const [contentType, body] of [
        ['multipart/form-data', 'key=x'],
        ['multipart/form-data; boundary=zz', '--zz\r\nbroken'],
      ]) {
        const response = await owner.app.request(`http://localhost${path}`, {
          method: 'POST',
          headers: {
            Cookie: `docent_console=${secret}`,
            Origin: 'http://localhost',
            'Content-Type': contentType as string,
            'X-CSRF-Token': session?.csrfToken ?? '',
          },
          body,
        });
        expect(response.status, `${path} ${contentType}`).toBe(400);
        const json = (await response.json()) as { error: { code: string; requestId: string } };
        expect(json.error.code).toBe('invalid_request');
        expect(json.error.requestId).toMatch(/^req_/);
      }
  });
});

describe.each(dialects)('console addresses and forms holding U+0000 on %s', (dialect) => {
  const owner = useOwnerApp('owner', { dialect });

  it('are a 400, not a 500 from a database that cannot store or compare it', async () => {
    const { secret } = await signInToConsole(owner.database.storage, owner.tenant.adminKey);
    const session = await findConsoleSession(owner.database.storage, secret);
    const headers = { Cookie: `docent_console=${secret}` };
    const addresses = [
      '/console?q=%00',
      '/console/conversations?version=a%00b',
      '/console/feedback?page=%00',
      '/console/gaps?language=%00',
      '/console/export/conversations.csv?q=%00',
      '/console/conversations/%00',
      '/console/sites/%00',
      '/console/sites/owner/jobs/%00.json',
    ];
    for (const path of addresses) {
      const response = await owner.app.request(`http://localhost${path}`, { headers });
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe(
        'invalid_request',
      );
    }
    const forms: [string, Record<string, string>][] = [
      ['/console/keys', { kind: 'assistant', site: 'own\u0000er' }],
      ['/console/sites/owner/settings', { name: 'Owner', instructions: 'a\u0000b' }],
      ['/console/feedback/resolve', { messageId: '\u0000', fpHash: 'abcdefabcdef', resolved: 'true' }],
    ];
    for (const [path, fields] of forms) {
      const response = await owner.app.request(`http://localhost${path}`, {
        method: 'POST',
        headers: {
          ...headers,
          Origin: 'http://localhost',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ _csrf: session?.csrfToken ?? '', ...fields }).toString(),
      });
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe(
        'invalid_request',
      );
    }
    // The site's settings were left as they were.
    const page = await owner.app.request('http://localhost/console/sites/owner', { headers });
    expect(page.status).toBe(200);
  });
});
