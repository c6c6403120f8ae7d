import { describe, expect, it } from 'vitest';
import { fixtureLine, readFixture } from './fixture-navigation.ts';
import { starlightSlug } from './starlight.ts';

const rows = (nav: Awaited<ReturnType<typeof readFixture>>['nav']) =>
  nav.pages.map((p) => [p.id, p.file ?? null, p.group, p.languages.join(',')]);

describe('Starlight slugs', () => {
  it('slugs each path segment like Astro and drops /index', () => {
    expect(starlightSlug('guides/Writing Pages.md')).toBe('guides/writing-pages');
    expect(starlightSlug('reference/index.mdx')).toBe('reference');
    expect(starlightSlug('index.mdx')).toBe('index');
    expect(starlightSlug('API_v2.0.md')).toBe('api_v20');
  });
});

describe('Starlight site with a root locale and pt-BR', () => {
  it('walks the sidebar per locale (slugs, groups, autogenerate), then the rest; drafts and partials left out', async () => {
    const { nav, fileOf } = await readFixture('starlight-i18n');
    expect(nav.summary).toEqual({
      kind: 'starlight',
      versions: [],
      languages: ['en', 'pt-BR'],
      name: 'Acme Starlight',
    });
    const c = 'src/content/docs';
    // pt-BR translates two pages; Starlight shows the others' English text there, so they are pt-BR too.
    expect(rows(nav)).toEqual([
      ['getting-started', `${c}/getting-started.md`, 'Start here', 'en'],
      ['installation', `${c}/installation.md`, 'Start here', 'en,pt-BR'],
      // autogenerate: sidebar.order first, then by name; subfolders are groups named after the folder.
      ['guides/deploy', `${c}/guides/deploy.md`, 'Guides', 'en'],
      ['guides/advanced/tuning', `${c}/guides/advanced/tuning.md`, 'advanced', 'en,pt-BR'],
      ['guides/writing-pages', `${c}/guides/Writing Pages.md`, 'Guides', 'en,pt-BR'],
      ['changelog', `${c}/changelog.md`, null, 'en,pt-BR'],
      // Published but not in the sidebar (hidden, the splash page, and items only an import names).
      ['guides/hidden-trick', `${c}/guides/hidden-trick.md`, null, 'en,pt-BR'],
      ['index', `${c}/index.mdx`, null, 'en,pt-BR'],
      ['reference/api', `${c}/reference/api.md`, null, 'en,pt-BR'],
      ['pt-br/getting-started', `${c}/pt-br/getting-started.md`, 'Start here', 'pt-BR'],
      ['pt-br/guides/deploy', `${c}/pt-br/guides/deploy.md`, 'Guides', 'pt-BR'],
    ]);
    for (const p of nav.pages) expect(fileOf.get(p.id), p.id).toBe(p.file);
  });

  it('warns once about sidebar items it cannot read statically', async () => {
    const { warnings } = await readFixture('starlight-i18n');
    expect(warnings).toEqual([
      {
        file: 'astro.config.mjs',
        line: fixtureLine('starlight-i18n', 'astro.config.mjs', 'items: referenceItems'),
        message:
          'sidebar items are "referenceItems" imported from "./src/reference-items.mjs"; their pages are indexed after the sidebar, in folder order',
      },
    ]);
  });
});
