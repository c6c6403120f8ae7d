import { describe, expect, it } from 'vitest';
import { MAX_NAME_LENGTH } from '../../../tenancy/sites.ts';
import { createSiteBody } from './create-site.ts';
import { updateSiteBody } from './update-site.ts';

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
});
