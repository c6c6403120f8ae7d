import { describe, expect, it } from 'vitest';
import { useOwnerApp } from '../../testing/test-app.ts';

type Document = {
  paths: Record<
    string,
    Record<string, { requestBody?: unknown; responses: Record<string, unknown>; security?: object[] }>
  >;
};

/** The git webhook takes what its forge sends (JSON or a form), so no 415. */
const ANY_BODY = new Set(['/v1/hooks/sites/{domain}/git']);

describe('every route that reads a JSON body', () => {
  const owner = useOwnerApp('owner');

  /** Each route documented with a request body, by `METHOD /path`. */
  const bodyRoutes = async () => {
    const document = (await (await owner.app.request('http://localhost/openapi.json')).json()) as Document;
    return Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody !== undefined && !ANY_BODY.has(path))
        .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, operation })),
    );
  };

  it('answers 415 to a body that is not JSON and 413 to one too large', async () => {
    const checked: string[] = [];
    for (const { name, method, path, operation } of await bodyRoutes()) {
      const admin = JSON.stringify(operation.security ?? []).includes('adminKey');
      const send = (contentType: string, body: string) =>
        owner.app.request(`http://localhost${path.replace('{domain}', 'owner')}`, {
          method: method.toUpperCase(),
          headers: {
            Authorization: `Bearer ${admin ? owner.tenant.adminKey : owner.tenant.assistantKey}`,
            // The MCP endpoint wants both (406 otherwise); the others take it as well.
            Accept: 'application/json, text/event-stream',
            'Content-Type': contentType,
            'Content-Length': String(Buffer.byteLength(body)),
          },
          body,
        });
      // Plain text that happens to be JSON is still not read as JSON.
      expect((await send('text/plain', '{}')).status, name).toBe(415);
      expect((await send('application/json', `{"x":"${'x'.repeat(2_000_000)}"}`)).status, name).toBe(413);
      checked.push(name);
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'POST /v1/admin/sites',
        'POST /v1/admin/sites/{domain}/ingestions',
        'PUT /v1/admin/organization/retention',
        'POST /v1/assistant/{domain}/message',
      ]),
    );
  });

  it('documents them in /openapi.json', async () => {
    for (const { name, operation } of await bodyRoutes())
      expect(Object.keys(operation.responses), name).toEqual(expect.arrayContaining(['413', '415']));
  });
});

describe('every route in /openapi.json', () => {
  const owner = useOwnerApp('owner');

  it('documents 503, which any of them answers while the database cannot be reached', async () => {
    const document = (await (await owner.app.request('http://localhost/openapi.json')).json()) as Document;
    const operations = Object.entries(document.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, operation]) => ({ name: `${method} ${path}`, operation })),
    );
    expect(operations.length).toBeGreaterThan(30);
    for (const { name, operation } of operations)
      expect(Object.keys(operation.responses), name).toContain('503');
  });
});
