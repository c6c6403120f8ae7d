import { describe, expect, it } from 'vitest';
import { publishedUrl } from '../search/site-search.ts';
import { allowedOriginsSchema, baseUrlSchema, MAX_NAME_LENGTH, siteNameSchema } from './sites.ts';

/** What an owner types that would be stored and then quietly break every citation or every widget. */
describe('site URL rules', () => {
  it('refuses a base URL whose citations would land inside its query or fragment', () => {
    for (const baseUrl of [
      'https://docs.example.com/docs?ref=ai',
      'https://docs.example.com/#top',
      'https://d.example/#/guides/x?y',
      'https://d.example/?#/',
    ]) {
      const parsed = baseUrlSchema.safeParse(baseUrl);
      expect(parsed.success, baseUrl).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/no query \(\?\) or fragment \(#\)/);
    }
  });

  it("takes a hash router's base (Docsify's https://d.example/#/): page paths go inside its fragment", () => {
    expect(baseUrlSchema.parse('https://docs.example.com/#/')).toBe('https://docs.example.com/#');
    expect(baseUrlSchema.parse('https://d.example/docs/#')).toBe('https://d.example/docs/#');
    expect(publishedUrl('https://docs.example.com/#', 'guides/setup', null)).toBe(
      'https://docs.example.com/#/guides/setup',
    );
  });

  it('refuses a base URL with a user name or password, which every reader would see', () => {
    for (const baseUrl of ['https://user:pw@docs.example.com', 'https://token@docs.example.com/docs']) {
      const parsed = baseUrlSchema.safeParse(baseUrl);
      expect(parsed.success, baseUrl).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/no user name or password/);
    }
  });

  it('still takes a base URL with a path, trailing slashes dropped', () => {
    expect(baseUrlSchema.parse('https://docs.example.com/docs/')).toBe('https://docs.example.com/docs');
    expect(baseUrlSchema.parse('http://localhost:3000')).toBe('http://localhost:3000');
  });

  it('refuses a wildcard origin, which no browser origin would ever match', () => {
    for (const origin of ['https://*.example.com', 'http://*:4412', '*']) {
      const parsed = allowedOriginsSchema.safeParse([origin]);
      expect(parsed.success, origin).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/wildcards are not supported/);
    }
    expect(allowedOriginsSchema.parse(['https://docs.example.com'])).toEqual(['https://docs.example.com']);
  });

  it('stores an origin as browsers send it, however it was written, and says why a non-origin is refused', () => {
    expect(
      allowedOriginsSchema.parse([
        'HTTPS://Docs.Example.com',
        'https://docs.example.com/',
        'https://docs.example.com:443',
        'http://localhost:3000/',
      ]),
    ).toEqual(['https://docs.example.com', 'http://localhost:3000']);
    const why = (origin: string) => allowedOriginsSchema.safeParse([origin]).error?.issues[0]?.message;
    expect(why('https://docs.example.com/guide')).toMatch(/no path$/);
    expect(why('https://docs.example.com/?x=1')).toMatch(/no path$/);
    expect(why('https://docs.example.com#top')).toMatch(/no path$/);
    expect(why('https://user:pw@docs.example.com')).toMatch(/no user or password$/);
    expect(why('ftp://docs.example.com')).toMatch(/http: or https:/);
    expect(why('docs.example.com')).toMatch(/^must be an origin such as/);
    expect(why('https://docs.example.com\t')).toMatch(/no spaces$/);
  });

  it('refuses a blank site name, and trims one (the admin API bodies: site-name-rules.test.ts)', () => {
    expect(siteNameSchema.safeParse('   ').success).toBe(false);
    expect(siteNameSchema.safeParse('x'.repeat(MAX_NAME_LENGTH + 1)).success).toBe(false);
    // Characters as people count them: an emoji is one (two UTF-16 units).
    expect(siteNameSchema.safeParse('📘'.repeat(MAX_NAME_LENGTH)).success).toBe(true);
    expect(siteNameSchema.safeParse('📘'.repeat(MAX_NAME_LENGTH + 1)).success).toBe(false);
    expect(siteNameSchema.parse('  Acme docs ')).toBe('Acme docs');
    // One line, read as written: no control character, line break or bidirectional override.
    for (const forged of ['Acme\ndocs', 'Acme\u001b[31m', 'Acme\u2028docs', 'Acme \u202egpj.exe', 'A\u2066B'])
      expect(siteNameSchema.safeParse(forged).success, JSON.stringify(forged)).toBe(false);
    // Names in any script, emoji sequences (joined by U+200D) and marks of right-to-left text are names.
    for (const name of ['Документация', 'מדריך', 'مستندات\u200f', '👩\u200d💻 Dev docs'])
      expect(siteNameSchema.parse(name)).toBe(name);
  });
});
