import { describe, expect, it } from 'vitest';
import { tempFolders } from '../testing/temp-folders.ts';
import { type AnchorStyle, headingSlugger } from './heading-anchors.ts';
import { loadDocsFolder } from './load-docs-folder.ts';

const slugs = (style: AnchorStyle, headings: string[]): string[] => {
  const slugger = headingSlugger(style);
  return headings.map((h) => slugger.slug(h));
};

const HEADINGS = [
  'Hello World',
  'Hello World',
  "C++ & Rust: what's new?",
  'Émojis 🎉 rock',
  '日本語の見出し',
  '2024 changes',
  'snake_case name',
  'Spaced -- out',
  ':rocket: Features :+1:',
  'Ratio 1:2:3',
];

describe('heading ids as each framework makes them', () => {
  it('github-slugger (Docusaurus, Starlight, Mintlify, plain Markdown)', () => {
    expect(slugs('github', HEADINGS)).toEqual([
      'hello-world',
      'hello-world-1',
      'c--rust-whats-new',
      'émojis--rock',
      '日本語の見出し',
      '2024-changes',
      'snake_case-name',
      'spaced----out',
      'rocket-features-1',
      'ratio-123',
    ]);
  });

  it('MkDocs: emoji shortcodes are text without pymdownx.emoji, no part of the id with it', () => {
    const headings = [':rocket: Features :+1:', 'Key:value:pair'];
    expect(slugs('mkdocs', headings)).toEqual(['rocket-features-1', 'keyvaluepair']);
    expect(slugs('mkdocs-attr-list', headings)).toEqual(['rocket-features-1', 'keyvaluepair']);
    expect(slugs('mkdocs-emoji', headings)).toEqual(['features', 'keypair']);
    expect(slugs('mkdocs-attr-list-emoji', headings)).toEqual(['features', 'keypair']);
  });

  it("MkDocs: Python-Markdown toc's slugify and unique (`_1`, and `_1` for an empty id)", () => {
    expect(slugs('mkdocs-emoji', [...HEADINGS, '日本語', 'Hello World'])).toEqual([
      'hello-world',
      'hello-world_1',
      'c-rust-whats-new',
      'emojis-rock',
      '_1',
      '2024-changes',
      'snake_case-name',
      'spaced-out',
      'features',
      'ratio-123',
      '_2',
      'hello-world_2',
    ]);
  });

  it("VitePress: @mdit-vue's slugify and markdown-it-anchor's `-1`", () => {
    expect(slugs('vitepress', HEADINGS)).toEqual([
      'hello-world',
      'hello-world-1',
      'c-rust-what-s-new',
      'emojis-🎉-rock',
      '日本語の見出し',
      '_2024-changes',
      'snake-case-name',
      'spaced-out',
      'features',
      'ratio-1-2-3',
    ]);
  });
});

describe('pages get the anchors of their framework', () => {
  const fixture = tempFolders('docent-anchors-');
  const body =
    "# Setup\n\n## C++ & Rust: what's new?\n\nA.\n\n## 2024 changes\n\nB.\n\n## 2024 changes\n\nC.\n";
  const anchors = async (root: string, id: string): Promise<(string | null)[]> => {
    const site = await loadDocsFolder(root);
    return site.pages.find((p) => p.path === id)?.chunks.map((c) => c.anchor) ?? [];
  };

  it('MkDocs', async () => {
    const root = fixture({ 'mkdocs.yml': 'site_name: X\n', 'docs/setup.md': body });
    expect(await anchors(root, 'setup')).toEqual(['c-rust-whats-new', '2024-changes', '2024-changes_1']);
  });

  it('VitePress', async () => {
    const root = fixture({
      '.vitepress/config.mts': 'export default { cleanUrls: true }\n',
      'setup.md': body,
    });
    expect(await anchors(root, 'setup')).toEqual(['c-rust-what-s-new', '_2024-changes', '_2024-changes-1']);
  });

  it('Docusaurus and plain Markdown keep github-slugger', async () => {
    const docusaurus = fixture({ 'docusaurus.config.js': 'module.exports = {};\n', 'docs/setup.md': body });
    expect(await anchors(docusaurus, 'docs/setup')).toEqual([
      'c--rust-whats-new',
      '2024-changes',
      '2024-changes-1',
    ]);
    const plain = fixture({ 'setup.md': body });
    expect(await anchors(plain, 'setup')).toEqual(['c--rust-whats-new', '2024-changes', '2024-changes-1']);
  });
  const explicit =
    '# Setup {#start}\n\nIntro.\n\n## Getting started {#custom-id}\n\nA.\n\n## Getting started\n\nB.\n';
  const sections = async (root: string, id: string) => {
    const site = await loadDocsFolder(root);
    const found = site.pages.find((p) => p.path === id);
    return {
      title: found?.title,
      warnings: site.warnings.length,
      chunks: found?.chunks.map((c) => [c.anchor, c.headings.join(' › ')]),
    };
  };

  it('Docusaurus reads an explicit `{#id}`, in .md and in .mdx (which MDX alone cannot parse)', async () => {
    const root = fixture({
      'docusaurus.config.js': "module.exports = { presets: [['classic', { docs: {} }]] };\n",
      'docs/setup.md': explicit,
      'docs/other.mdx': explicit.replace('Intro.', '<Tip>Intro.</Tip>'),
    });
    const expected = {
      title: 'Setup',
      warnings: 0,
      chunks: [
        [null, ''],
        ['custom-id', 'Getting started'],
        ['getting-started', 'Getting started'],
      ],
    };
    expect(await sections(root, 'docs/setup')).toEqual(expected);
    expect(await sections(root, 'docs/other')).toEqual(expected);
  });

  it('Docusaurus reads the MDX comment form, `{/* #id */}`, in .mdx pages', async () => {
    const root = fixture({
      'docusaurus.config.js': "module.exports = { presets: [['classic', { docs: {} }]] };\n",
      'docs/setup.mdx':
        '# Setup\n\n## Getting started {/* #install */}\n\nA.\n\n## Other {/* just a note */}\n\nB.\n',
    });
    expect(await sections(root, 'docs/setup')).toEqual({
      title: 'Setup',
      warnings: 0,
      chunks: [
        ['install', 'Getting started'],
        ['other', 'Other'],
      ],
    });
  });

  it("Docusaurus keeps the heading's case with markdown.anchors.maintainCase", async () => {
    const root = fixture({
      'docusaurus.config.js':
        "module.exports = { markdown: { anchors: { maintainCase: true } }, presets: [['classic', { docs: {} }]] };\n",
      'docs/setup.md': '# Setup\n\n## Hello World\n\nA.\n\n## Kept {#As-Written}\n\nB.\n',
    });
    expect((await sections(root, 'docs/setup')).chunks).toEqual([
      ['Hello-World', 'Hello World'],
      ['As-Written', 'Kept'],
    ]);
  });

  it('VitePress reads an explicit `{#id}` too (markdown-it-attrs)', async () => {
    const root = fixture({
      '.vitepress/config.mts': 'export default { cleanUrls: true }\n',
      'setup.md': explicit,
    });
    expect((await sections(root, 'setup')).chunks).toEqual([
      [null, ''],
      ['custom-id', 'Getting started'],
      ['getting-started', 'Getting started'],
    ]);
  });

  it('VitePress reads the whole attribute list: `{#id .class}`, `{ #id }`, and `{.class}` leaves the text', async () => {
    const root = fixture({
      '.vitepress/config.mts': 'export default { cleanUrls: true }\n',
      'setup.md':
        '# Setup\n\n## Attrs {#my-id .new}\n\nA.\n\n## Spaced { #spaced-id }\n\nB.\n\n## Styled {.fancy}\n\nC.\n\n## Two ids {#first #second}\n\nD.\n',
    });
    expect((await sections(root, 'setup')).chunks).toEqual([
      ['my-id', 'Attrs'],
      ['spaced-id', 'Spaced'],
      ['styled', 'Styled'],
      ['first', 'Two ids'],
    ]);
  });

  it('Starlight on Astro 5 drops one trailing hyphen from the slug; Astro 6 and headingIdCompat do not', async () => {
    const starlight = (astro: string, extra = ''): Record<string, string> => ({
      'package.json': JSON.stringify({ dependencies: { astro, '@astrojs/starlight': '^0.30.0' } }),
      'astro.config.mjs': `import starlight from '@astrojs/starlight';\nexport default { ${extra}integrations: [starlight({ title: 'S' })] };\n`,
      'src/content/docs/setup.md':
        '---\ntitle: Setup\n---\n\n## Release notes 🎉\n\nA.\n\n## C++ & Rust\n\nB.\n',
    });
    expect((await sections(fixture(starlight('^5.6.1')), 'setup')).chunks).toEqual([
      ['release-notes', 'Release notes 🎉'],
      ['c--rust', 'C++ & Rust'],
    ]);
    const github = [
      ['release-notes-', 'Release notes 🎉'],
      ['c--rust', 'C++ & Rust'],
    ];
    expect((await sections(fixture(starlight('^6.0.0')), 'setup')).chunks).toEqual(github);
    const compat = starlight('5.5.0', 'experimental: { headingIdCompat: true }, ');
    expect((await sections(fixture(compat), 'setup')).chunks).toEqual(github);
  });

  it('Starlight and plain Markdown do not: the text stays, slugged', async () => {
    const plain = fixture({ 'setup.md': explicit });
    expect((await sections(plain, 'setup')).chunks).toEqual([
      [null, ''],
      ['getting-started-custom-id', 'Getting started {#custom-id}'],
      ['getting-started', 'Getting started'],
    ]);
  });
  it('MkDocs reads attr_list ids only when the extension is enabled; an id it names is taken first', async () => {
    const page =
      '# Setup\n\n## Install\n\nA.\n\n## Getting started {#install}\n\nB.\n\n## More { #more .new }\n\nC.\n\n## Styled {: .fancy }\n\nD.\n';
    const withAttrList = fixture({
      'mkdocs.yml': 'site_name: X\nmarkdown_extensions:\n  - attr_list\n  - toc:\n      permalink: true\n',
      'docs/setup.md': page,
    });
    expect((await sections(withAttrList, 'setup')).chunks).toEqual([
      ['install_1', 'Install'],
      ['install', 'Getting started'],
      ['more', 'More'],
      ['styled', 'Styled'],
    ]);
    const without = fixture({ 'mkdocs.yml': 'site_name: X\n', 'docs/setup.md': page });
    expect((await sections(without, 'setup')).chunks).toEqual([
      ['install', 'Install'],
      ['getting-started-install', 'Getting started {#install}'],
      ['more-more-new', 'More { #more .new }'],
      ['styled-fancy', 'Styled {: .fancy }'],
    ]);
  });

  it('MkDocs drops emoji shortcodes from anchors only with pymdownx.emoji enabled', async () => {
    const page = '# Setup\n\n## Features :rocket:\n\nA.\n';
    const plain = fixture({ 'mkdocs.yml': 'site_name: X\n', 'docs/setup.md': page });
    expect((await sections(plain, 'setup')).chunks).toEqual([['features-rocket', 'Features :rocket:']]);
    const material = fixture({
      'mkdocs.yml':
        'site_name: X\nmarkdown_extensions:\n  - attr_list\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n',
      'docs/setup.md': page,
    });
    expect((await sections(material, 'setup')).chunks).toEqual([['features', 'Features :rocket:']]);
  });

  it("MkDocs warns that a toc slugify of the site's own is not run", async () => {
    const root = fixture({
      'mkdocs.yml':
        'site_name: X\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify\n        kwds:\n          case: lower\n',
      'docs/setup.md': body,
    });
    const site = await loadDocsFolder(root);
    expect(site.warnings).toEqual([
      expect.objectContaining({ file: 'mkdocs.yml', message: expect.stringContaining("toc's slugify") }),
    ]);
  });
});
