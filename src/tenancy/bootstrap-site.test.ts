import { describe, expect, it } from 'vitest';
import { siteNameOf } from './bootstrap-site.ts';
import { MAX_NAME_LENGTH } from './sites.ts';

describe('siteNameOf', () => {
  it('makes a docs config name one printable line within the name limit', () => {
    expect(siteNameOf('  Lumen Docs  ')).toBe('Lumen Docs');
    // A NUL (PostgreSQL refuses it) and line breaks (llms.txt's `# name` line) become spaces.
    expect(siteNameOf('Lu\u0000men\nDocs\u2028v2')).toBe('Lu men Docs v2');
    expect(siteNameOf('\n\t ')).toBeNull();
    expect(siteNameOf(null)).toBeNull();
    // Cut between characters, never inside a surrogate pair.
    const long = siteNameOf('😀'.repeat(MAX_NAME_LENGTH + 5));
    expect([...(long ?? '')]).toHaveLength(MAX_NAME_LENGTH);
    expect(long?.endsWith('😀')).toBe(true);
  });
});
