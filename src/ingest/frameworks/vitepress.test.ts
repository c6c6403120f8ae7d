import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureLine, readFixture, readFolderNavigation } from './fixture-navigation.ts';
import { vitepressUrl } from './vitepress.ts';

const rows = (nav: Awaited<ReturnType<typeof readFixture>>['nav']) =>
  nav.pages.map((p) => [p.id, p.file ?? null, p.group, p.languages.join(',')]);

describe('VitePress URLs', () => {
  it('maps index.md to its folder', () => {
    expect(vitepressUrl('index.md')).toBe('');
    expect(vitepressUrl('guide/index.md')).toBe('guide');
    expect(vitepressUrl('guide/setup.md')).toBe('guide/setup');
  });
});

describe('VitePress site in docs/ with locales and per-path sidebars', () => {
  it('walks each sidebar, then unlisted pages; srcExclude and public/ are left out', async () => {
    const { nav, fileOf } = await readFixture('vitepress-locales');
    expect(nav.summary).toEqual({
      kind: 'vitepress',
      versions: [],
      languages: ['en-US', 'fr'],
      name: 'Acme VitePress',
    });
    expect(rows(nav)).toEqual([
      ['guide', 'docs/guide/index.md', 'Introduction', 'en-US'],
      ['guide/getting-started', 'docs/guide/getting-started.md', 'Introduction', 'en-US'],
      ['guide/plugins', 'docs/guide/plugins.md', 'Advanced', 'en-US'],
      ['fr/guide/getting-started', 'docs/fr/guide/getting-started.md', 'Guide', 'fr'],
      ['api/reference', 'docs/api/reference.md', null, 'en-US'],
      ['fr', 'docs/fr/index.md', null, 'fr'],
      ['guide/deploy', 'docs/guide/deploy.md', null, 'en-US'],
      ['index', 'docs/index.md', null, 'en-US'],
    ]);
    for (const p of nav.pages) expect(fileOf.get(p.id), p.id).toBeDefined();
  });

  it('warns about the imported sidebar with its line', async () => {
    const { warnings } = await readFixture('vitepress-locales');
    expect(warnings).toEqual([
      {
        file: 'docs/.vitepress/config.mts',
        line: fixtureLine('vitepress-locales', 'docs/.vitepress/config.mts', "'/api/': apiSidebar"),
        message:
          'sidebar items are "apiSidebar" imported from "./sidebars/api", which cannot be read statically; its pages are indexed after the sidebar, in folder order',
      },
    ]);
  });
});

describe('VitePress site with srcDir, item bases and rewrites', () => {
  it('resolves relative links against base, applies plain rewrites and warns about the rest', async () => {
    const { nav, warnings } = await readFixture('vitepress-srcdir');
    expect(rows(nav)).toEqual([
      ['reference/config.html', 'src/reference/config.md', 'Reference', ''],
      ['reference/cli.html', 'src/reference/cli.md', 'Reference', ''],
      ['core', 'src/packages/core/index.md', null, ''],
      ['index', 'src/index.md', null, ''],
    ]);
    const line = (text: string) => fixtureLine('vitepress-srcdir', '.vitepress/config.js', text);
    expect(warnings).toEqual([
      {
        file: '.vitepress/config.js',
        line: line("':pkg/(.*)'"),
        message: 'rewrite "packages/:pkg/(.*)" has parameters or is not text; not applied',
      },
      {
        file: '.vitepress/config.js',
        line: line("'/nowhere'"),
        message: 'sidebar links to "/nowhere", which is not a page of the site',
      },
      {
        file: '.vitepress/config.js',
        line: line('getExtraItem()'),
        message:
          'sidebar item is a function call (getExtraItem), which cannot be read statically; its pages are indexed after the sidebar, in folder order',
      },
    ]);
  });
});

describe('VitePress config wrapped by a plugin', () => {
  it('reads through nested wrappers (withMermaid(defineConfig({…})))', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docent-vitepress-wrapped-'));
    const files: Record<string, string> = {
      '.vitepress/config.ts': [
        "import { defineConfig } from 'vitepress'",
        "import { withMermaid } from 'vitepress-plugin-mermaid'",
        'export default withMermaid(',
        "  defineConfig({ title: 'Mermaid site', srcDir: 'src',",
        "    themeConfig: { sidebar: [{ text: 'Guide', items: [{ text: 'B', link: '/guide/b' }, { text: 'A', link: '/guide/a' }] }] } }),",
        ')',
      ].join('\n'),
      'src/guide/a.md': '# A\n',
      'src/guide/b.md': '# B\n',
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      writeFileSync(path.join(root, name), text);
    }
    const read = await readFolderNavigation(root);
    // Before: "the config is a function call (defineConfig)", and every page at src/….
    expect(read?.warnings).toEqual([]);
    expect(read?.nav.summary.name).toBe('Mermaid site');
    expect(read && rows(read.nav)).toEqual([
      ['guide/b.html', 'src/guide/b.md', 'Guide', ''],
      ['guide/a.html', 'src/guide/a.md', 'Guide', ''],
    ]);
  });
});

describe('VitePress page URLs and cleanUrls', () => {
  const site = async (config: string): Promise<string[]> => {
    const root = mkdtempSync(path.join(tmpdir(), 'docent-vitepress-clean-'));
    const files: Record<string, string> = {
      '.vitepress/config.mts': config,
      'index.md': '# Home\n',
      'guide/index.md': '# Guide\n',
      'guide/setup.md': '# Setup\n',
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      writeFileSync(path.join(root, name), text);
    }
    const read = await readFolderNavigation(root);
    return (read?.nav.pages ?? []).map((p) => p.id);
  };

  it('publishes a page at its .html file by default, as VitePress links it; a folder index at its folder', async () => {
    const config = "export default { themeConfig: { sidebar: [{ text: 'Setup', link: '/guide/setup' }] } }\n";
    expect(await site(config)).toEqual(['guide/setup.html', 'guide', 'index']);
  });

  it('drops the .html with cleanUrls: true', async () => {
    const config =
      "export default { cleanUrls: true, themeConfig: { sidebar: [{ text: 'Setup', link: '/guide/setup' }] } }\n";
    expect(await site(config)).toEqual(['guide/setup', 'guide', 'index']);
  });
});
