import { describe, expect, it } from 'vitest';
import { MAX_NAME_LENGTH } from '../../../tenancy/sites.ts';
import { buildOpenApiDocument } from '../../openapi.ts';
import { createKeyOperation } from './create-key.ts';
import { createSiteBody, createSiteOperation } from './create-site.ts';
import { updateSiteBody, updateSiteOperation } from './update-site.ts';

describe('site names in the admin API', () => {
  it('refuses a blank site name, and trims one, on every writer (the console already did)', () => {
    for (const parse of [
      (name: string) => createSiteBody.safeParse({ domain: 'acme', name }),
      (name: string) => updateSiteBody.safeParse({ name }),
    ]) {
      expect(parse('   ').success).toBe(false);
      expect(parse('x'.repeat(MAX_NAME_LENGTH + 1)).success).toBe(false);
      expect(parse('  Acme docs ')).toMatchObject({ success: true, data: { name: 'Acme docs' } });
    }
  });

  it('documents the longest name (maxLength counts code points, as the server does)', () => {
    const document = buildOpenApiDocument([createSiteOperation, updateSiteOperation, createKeyOperation], {
      version: 'test',
    }) as {
      paths: Record<
        string,
        Record<string, { requestBody: { content: Record<string, { schema: { properties: object } }> } }>
      >;
    };
    const nameOf = (path: string, method: string) =>
      document.paths[path]?.[method]?.requestBody.content['application/json']?.schema.properties;
    for (const [path, method] of [
      ['/v1/admin/sites', 'post'],
      ['/v1/admin/sites/{domain}', 'patch'],
      ['/v1/admin/keys', 'post'],
    ] as const)
      expect(nameOf(path, method), `${method} ${path}`).toMatchObject({
        name: { type: 'string', maxLength: MAX_NAME_LENGTH },
      });
  });
});
