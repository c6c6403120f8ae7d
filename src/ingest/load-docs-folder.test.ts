import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../testing/temp-folders.ts';
import { MAX_REPOSITORY_INSTRUCTIONS_CHARS } from './assistant-instructions.ts';
import { chunkPage, MAX_CHUNK_CHARS } from './chunk-page.ts';
import { MAX_PAGE_LINES } from './ingest-limits.ts';
import { loadDocsFolder } from './load-docs-folder.ts';
import { DocsConfigError } from './navigation.ts';
import type { LoadedSite, ParsedPage } from './types.ts';

/** Writes `files` (relative path → content) into a fresh temp folder. */
const fixture = tempFolders('docent-loader-');

const page = (site: LoadedSite, id: string): ParsedPage => {
  const found = site.pages.find((p) => p.path === id);
  if (!found) throw new Error(`page ${id} not loaded; have ${site.pages.map((p) => p.path).join(', ')}`);
  return found;
};
const text = (p: ParsedPage): string => p.chunks.map((c) => c.text).join('\n\n');
const md = (title: string, body = 'Body.'): string => `---\ntitle: ${title}\n---\n\n${body}\n`;

describe('docs.json navigation shapes', () => {
  it('walks tabs, anchors, dropdowns, products, versions, languages, nested groups and $ref', async () => {
    const docsJson = {
      name: 'Shapes',
      navigation: {
        global: { anchors: [{ anchor: 'Blog', href: 'https://example.com/blog' }] },
        languages: [
          {
            language: 'en',
            versions: [
              {
                version: 'v2 (latest)',
                tabs: [
                  {
                    tab: 'Guides',
                    groups: [
                      {
                        group: 'Start',
                        root: 'start/index',
                        pages: ['/intro.mdx', { group: 'Nested', pages: ['nested/deep', 'shared'] }],
                      },
                    ],
                  },
                  { tab: 'Site', href: 'https://example.com' },
                ],
              },
              {
                version: 'v1',
                anchors: [{ anchor: 'Old', pages: ['old/page', 'shared'] }],
                dropdowns: [{ dropdown: 'More', groups: [{ group: 'G', pages: ['drop/page'] }] }],
              },
            ],
          },
          { $ref: 'lang/es.json' },
        ],
        products: [{ product: 'API', pages: ['api/overview'] }],
      },
    };
    const root = fixture({
      'docs.json': JSON.stringify(docsJson, null, 2),
      'lang/es.json': JSON.stringify({ language: 'es', groups: [{ group: 'Inicio', pages: ['es/intro'] }] }),
      'start/index.mdx': md('Start'),
      'intro.mdx': md('Intro'),
      'nested/deep.mdx': md('Deep'),
      'shared.mdx': md('Shared'),
      'old/page.md': '# Old page\n\nOld text.\n',
      'drop/page.mdx': md('Drop'),
      'es/intro.mdx': md('Intro ES'),
      'api/overview.mdx': md('API'),
      'orphan.mdx': md('Orphan'),
    });
    const site = await loadDocsFolder(root);
    expect(site.pages.map((p) => p.path)).toEqual([
      'start/index',
      'intro',
      'nested/deep',
      'shared',
      'old/page',
      'drop/page',
      'es/intro',
      'api/overview',
    ]);
    expect(site.navigation).toEqual({
      kind: 'docs.json',
      versions: ['v2 (latest)', 'v1'],
      languages: ['en', 'es'],
      name: 'Shapes',
    });
    expect(page(site, 'shared')).toMatchObject({ versions: ['v2 (latest)', 'v1'], languages: ['en'] });
    expect(page(site, 'es/intro')).toMatchObject({ versions: [], languages: ['es'] });
    expect(page(site, 'api/overview')).toMatchObject({ versions: [], languages: [] });
    expect(page(site, 'old/page').title).toBe('Old page');
    expect(site.skipped).toBe(1);
    expect(site.warnings).toEqual([]);
  });

  it('warns about missing pages, $ref problems and odd entries without failing', async () => {
    const root = fixture({
      'docs.json':
        '{\n  "navigation": {\n    "pages": [\n      "here",\n      "gone",\n      42,\n      { "$ref": "missing.json" },\n      { "$ref": "loop.json" }\n    ]\n  }\n}\n',
      'loop.json': '{ "pages": ["here", { "$ref": "loop.json" }] }',
      'here.mdx': md('Here'),
    });
    const site = await loadDocsFolder(root);
    expect(site.pages.map((p) => p.path)).toEqual(['here']);
    const messages = site.warnings.map((w) => `${w.file}:${w.line ?? '-'} ${w.message}`);
    expect(messages).toContainEqual(expect.stringMatching(/^docs\.json:5 navigation lists page "gone"/));
    expect(messages).toContainEqual(expect.stringMatching(/^docs\.json:\S+ unexpected number/));
    expect(messages).toContainEqual(
      expect.stringMatching(/^docs\.json:7 \$ref file "missing\.json" not found/),
    );
    expect(messages).toContainEqual(expect.stringMatching(/^loop\.json:\S+ \$ref cycle/));
  });

  it('skips hidden navigation unless searchable, and hidden/noindex/searchable:false pages', async () => {
    const root = fixture({
      'docs.json': JSON.stringify({
        navigation: {
          tabs: [
            { tab: 'Main', pages: ['a', 'b', 'c', 'd'] },
            { tab: 'Secret', hidden: true, pages: ['e'] },
            { tab: 'Help', hidden: true, searchable: true, pages: ['f'] },
          ],
        },
      }),
      'a.mdx': md('A'),
      'b.mdx': '---\ntitle: B\nhidden: true\n---\nB',
      'c.mdx': '---\ntitle: C\nnoindex: true\n---\nC',
      'd.mdx': '---\ntitle: D\nsearchable: false\n---\nD',
      'e.mdx': md('E'),
      'f.mdx': md('F'),
    });
    const site = await loadDocsFolder(root);
    expect(site.pages.map((p) => p.path)).toEqual(['a', 'f']);
    expect(site.skipped).toBe(4);
  });

  it('skips a page by its front matter before parsing it, so a changelog too long to parse costs nothing', async () => {
    const long = Array.from({ length: MAX_PAGE_LINES + 1 }, (_, i) => `Release ${i}.`).join('\n');
    const root = fixture({
      'a.mdx': `---\ntitle: Changelog\nnoindex: true\n---\n${long}`,
      // No skip key: the full parse's front matter decides (and this page is not skipped).
      'b.mdx': `---\ntitle: Long\ndescription: hidden gems\n---\n${long}`,
      'c.mdx': '---\ntitle: C\n"searchable": false\n---\nC',
      'd.mdx': md('D'),
    });
    const site = await loadDocsFolder(root);
    expect(site.pages.map((p) => p.path)).toEqual(['d']);
    expect(site.skipped).toBe(2);
    expect(site.warnings.map((w) => w.file)).toEqual(['b.mdx']);
    expect(site.warnings[0]?.message).toMatch(/MAX_PAGE_LINES/);
  });

  it('skips a Git LFS pointer left in place of a page, saying so, instead of indexing the pointer', async () => {
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${'4d7a'.repeat(16)}\nsize 12345\n`;
    const root = fixture({ 'big-guide.md': pointer, 'index.md': md('Index') });
    const site = await loadDocsFolder(root);
    expect(site.pages.map((p) => p.path)).toEqual(['index']);
    expect(site.warnings).toEqual([
      {
        file: 'big-guide.md',
        message: 'is a Git LFS pointer, not the page (LFS files are not downloaded); skipped',
      },
    ]);
  });
});

describe('mint.json', () => {
  it('reads groups with nested groups and group versions', async () => {
    const root = fixture({
      'mint.json': JSON.stringify({
        name: 'Legacy',
        versions: ['v2', 'v1'],
        tabs: [{ name: 'API', url: 'api' }],
        navigation: [
          { group: 'Start', pages: ['quickstart', { group: 'Inner', pages: ['api/one'] }] },
          { group: 'Old', version: 'v1', pages: ['old'] },
        ],
      }),
      'quickstart.mdx': md('Quickstart'),
      'api/one.mdx': md('One'),
      'old.mdx': md('Old'),
    });
    const site = await loadDocsFolder(root);
    expect(site.navigation).toEqual({
      kind: 'mint.json',
      versions: ['v2', 'v1'],
      languages: [],
      name: 'Legacy',
    });
    expect(site.pages.map((p) => p.path)).toEqual(['quickstart', 'api/one', 'old']);
    expect(page(site, 'old').versions).toEqual(['v1']);
  });
});

describe('navigation place', () => {
  const place = (site: LoadedSite) =>
    Object.fromEntries(site.pages.map((p) => [p.path, [p.navOrder, p.navGroup]]));

  it('gives each page its first place and the nearest enclosing group there', async () => {
    const root = fixture({
      'docs.json': JSON.stringify({
        navigation: {
          tabs: [
            {
              tab: 'Guides',
              pages: ['home'],
              groups: [
                { group: 'Start', pages: ['intro', { group: 'Deep', pages: ['deep'] }, 'after'] },
                { group: ' ', pages: ['blank-name'] },
                { group: 'Again', pages: ['intro', 'last'] },
              ],
            },
            { tab: 'Hidden', hidden: true, groups: [{ group: 'Secret', pages: ['moved'] }] },
            { tab: 'API', groups: [{ group: 'Reference', pages: ['moved'] }] },
          ],
        },
      }),
      ...Object.fromEntries(
        ['home', 'intro', 'deep', 'after', 'blank-name', 'last', 'moved'].map((id) => [`${id}.mdx`, md(id)]),
      ),
    });
    const site = await loadDocsFolder(root);
    expect(place(site)).toEqual({
      home: [0, null],
      intro: [1, 'Start'],
      deep: [2, 'Deep'],
      after: [3, 'Start'],
      // A blank group name is no group: the tab's pages have none.
      'blank-name': [4, null],
      last: [6, 'Again'],
      // First placed in a hidden tab, shown in another: readers find it there.
      moved: [8, 'Reference'],
    });
  });

  it('has no place in a plain Markdown folder', async () => {
    const root = fixture({ 'a.md': '# A', 'b/c.md': '# C' });
    const site = await loadDocsFolder(root);
    expect(place(site)).toEqual({ a: [null, null], 'b/c': [null, null] });
  });

  it('is not part of the content hash', async () => {
    const files = { 'a.mdx': md('A'), 'b.mdx': md('B') };
    const before = await loadDocsFolder(
      fixture({ ...files, 'docs.json': JSON.stringify({ navigation: { pages: ['a', 'b'] } }) }),
    );
    const after = await loadDocsFolder(
      fixture({
        ...files,
        'docs.json': JSON.stringify({ navigation: { groups: [{ group: 'G', pages: ['b', 'a'] }] } }),
      }),
    );
    expect(place(after)).toEqual({ a: [1, 'G'], b: [0, 'G'] });
    expect(page(after, 'a').contentHash).toBe(page(before, 'a').contentHash);
  });
});

describe('plain Markdown folder', () => {
  it('indexes every .md/.mdx except snippets, dot-folders, node_modules and repo housekeeping', async () => {
    const root = fixture({
      'README.md': '# Welcome\n\nStart here.',
      'guide/setup.md':
        '# Setup\n\nUse <kbd>Ctrl</kbd> and {braces} freely.\n\n<p>Some <b>html</b> &amp; text</p>\n',
      'guide/setup.mdx': md('Setup MDX'),
      'snippets/part.mdx': 'fragment',
      '.github/notes.md': '# hidden',
      'node_modules/pkg/readme.md': '# dep',
      'CONTRIBUTING.md': '# Contributing',
    });
    const site = await loadDocsFolder(root);
    expect(site.navigation.kind).toBe('none');
    expect(site.pages.map((p) => p.path)).toEqual(['README', 'guide/setup']);
    expect(page(site, 'guide/setup').title).toBe('Setup MDX');
    expect(page(site, 'README').title).toBe('Welcome');
    expect(site.skipped).toBe(1);
    // The .md beside it is dropped, and the owner is told which file made the page instead.
    expect(site.warnings).toEqual([
      {
        file: 'guide/setup.md',
        message: 'not indexed: guide/setup.mdx beside it makes the same page "guide/setup"',
      },
    ]);
  });

  it('treats .md as Markdown and strips HTML to text', async () => {
    const root = fixture({
      'a.md':
        '# A\n\nUse <kbd>Ctrl</kbd> and {braces}.\n\n<p>Some <b>html</b> &amp; text &constructor;</p>\n',
    });
    const site = await loadDocsFolder(root);
    expect(site.warnings).toEqual([]);
    expect(text(page(site, 'a'))).toContain('Use Ctrl and {braces}.');
    // An unknown entity stays as written, even one named like an Object.prototype member.
    expect(text(page(site, 'a'))).toContain('Some html & text &constructor;');
  });

  it("says so when the folder's docs.json is in a subfolder (a repository root given for its docs/)", async () => {
    const root = fixture({
      'README.md': '# Project',
      'docs/docs.json': JSON.stringify({ name: 'Nested', navigation: { pages: ['intro'] } }),
      'docs/intro.mdx': md('Intro'),
    });
    const site = await loadDocsFolder(root);
    expect(site.navigation.kind).toBe('none');
    expect(site.pages.map((p) => p.path)).toEqual(['README', 'docs/intro']);
    expect(site.warnings).toEqual([
      {
        file: 'docs/docs.json',
        message:
          'the docs folder has no docs.json of its own, so every Markdown file is a page and the navigation of docs/docs.json is not read; to use it, ingest the docs folder instead (a git source: subdir docs)',
      },
    ]);
    // A plain folder with no config anywhere, or one with its own, gets no such warning; nor does a data
    // file that happens to be named docs.json (no navigation).
    expect((await loadDocsFolder(fixture({ 'docs/a.md': '# A' }))).warnings).toEqual([]);
    const data = fixture({
      'a.md': '# A',
      'data/docs.json': JSON.stringify([{ id: 1 }]),
      'data/b.md': '# B',
    });
    expect((await loadDocsFolder(data)).warnings).toEqual([]);
    const own = fixture({
      'docs.json': JSON.stringify({ navigation: { pages: ['a'] } }),
      'a.mdx': md('A'),
      'old/mint.json': '{}',
      'old/b.mdx': md('B'),
    });
    expect((await loadDocsFolder(own)).warnings).toEqual([]);
  });

  it('refuses a docs.json that is not JSON, naming line and column, instead of indexing every file', async () => {
    const root = fixture({
      'docs.json': '{\n  "navigation": {\n    "pages": ["a",]\n  }\n}',
      'a.mdx': md('A'),
      'draft.mdx': md('Draft'),
    });
    await expect(loadDocsFolder(root)).rejects.toThrow(DocsConfigError);
    await expect(loadDocsFolder(root)).rejects.toThrow(
      /^docs\.json is not valid JSON at line 3, column \d+ /,
    );
  });

  it('refuses a mint.json that is not an object', async () => {
    const root = fixture({ 'mint.json': '["a"]', 'a.mdx': md('A') });
    await expect(loadDocsFolder(root)).rejects.toThrow('mint.json is not a JSON object');
  });
});

describe('page parsing', () => {
  it('indexes a page with broken front matter and reports the line', async () => {
    const root = fixture({ 'a.mdx': '---\ntitle: Fine\ndescription: [unclosed\n---\n\n## Section\n\nText.' });
    const site = await loadDocsFolder(root);
    expect(site.pages).toHaveLength(1);
    expect(site.warnings[0]).toMatchObject({ file: 'a.mdx' });
    expect(site.warnings[0]?.line).toBeGreaterThanOrEqual(2);
    expect(text(page(site, 'a'))).toContain('Text.');
    // The keys before the error are kept.
    expect(page(site, 'a').title).toBe('Fine');
  });

  it("takes the title from the heading when front matter breaks in the title's own value", async () => {
    const root = fixture({
      'broken.md': '---\ntitle: "Unclosed\n---\n# Broken FM\n\nText.\n',
      'bomb.md': `---\na: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from(
        { length: 6 },
        (_, i) =>
          `a${i + 1}: &a${i + 1} [${Array(10)
            .fill(i === 0 ? '*a' : `*a${i}`)
            .join(', ')}]`,
      ).join('\n')}\ntitle: Bomb\n---\n# Heading of the bomb\n\nText.\n`,
    });
    const site = await loadDocsFolder(root);
    // Before: "Unclose", the YAML parser's guess at the broken value.
    expect(page(site, 'broken').title).toBe('Broken FM');
    expect(page(site, 'bomb').title).toBe('Heading of the bomb');
    const bomb = site.warnings.filter((w) => w.file === 'bomb.md');
    expect(bomb).toEqual([
      {
        file: 'bomb.md',
        line: 2,
        message: expect.stringMatching(/^front matter could not be read \(.*alias.*\); ignored$/i),
      },
    ]);
  });

  it('joins the lines of a hard-wrapped paragraph or list item, keeping other line breaks', async () => {
    const body = [
      'Docent runs on PostgreSQL as well as on its default SQLite file: set `DATABASE_URL` to a `postgres://`',
      'URL, create an empty database and a user that owns it, then point Docent at it and',
      'start it.',
      '',
      '- `--git <url>`: the repository to clone. A site reads a folder (`--docs`)',
      '  or a repository, not both.',
      '',
      // A code span wrapped over two lines is one span (CommonMark: its line ending is a space).
      'After you edit the docs, update the site with `npm run docent -- ingest ../acme-docs',
      '--site acme` and it parses only the pages that changed.',
      '',
      // Scraped pages: a label, then a sample flattened into the paragraph; and a colon introducing it.
      'Example error',
      'event: error',
      'We may send errors in the stream, for example an overloaded_error, as follows:',
      'data: {"type": "error"}',
      '',
      // A colon inside parentheses the line opened goes on in the same sentence.
      '- **Gaps**: questions grouped by what they ask (by their words:',
      '  rewordings that share the key words land in one group), most unanswered first.',
      '',
      'Line one of an address, ended by a hard break  ',
      'line two',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '| 3 | 4 |',
    ].join('\n');
    for (const file of ['w.md', 'w.mdx']) {
      const site = await loadDocsFolder(fixture({ [file]: md('Wrapped', body) }));
      const t = text(page(site, 'w'));
      expect(t).toContain(
        'set `DATABASE_URL` to a `postgres://` URL, create an empty database and a user that owns it, then point Docent at it and start it.',
      );
      expect(t).toContain('A site reads a folder (`--docs`) or a repository, not both.');
      expect(t).toContain(
        'update the site with `npm run docent -- ingest ../acme-docs --site acme` and it parses only the pages that changed.',
      );
      expect(t).toContain('Example error\nevent: error\nWe may send errors');
      expect(t).toContain('as follows:\ndata: {');
      expect(t).toContain('(by their words: rewordings that share the key words land in one group), most');
      expect(t).toContain('ended by a hard break\nline two');
      expect(t).toContain('a | b\n1 | 2\n3 | 4');
      expect(t).not.toContain('\u2028');
    }
  });

  it('keeps each table row one line of cells: a line break or a pipe in a cell stays in its cell', async () => {
    const body = [
      '| Field | Type | Notes |',
      '|---|---|---|',
      '| name | `string \\| null` | may be null |',
      '| tags | string[] | one<br/>two |',
    ].join('\n');
    for (const file of ['t.md', 't.mdx']) {
      const t = text(page(await loadDocsFolder(fixture({ [file]: md('Table', body) })), 't'));
      // Three cells a row, as the header has: pages/stored-tables.ts writes the rows back as a table.
      expect(t, file).toContain(
        'Field | Type | Notes\nname | `string \\| null` | may be null\ntags | string[] | one two',
      );
    }
  });

  it('reads Material for MkDocs admonitions and content tabs as the site shows them, not as code', async () => {
    const body = [
      '!!! warning "Windows"',
      '    Install the Visual Studio Build Tools first.',
      '',
      '=== "Linux"',
      '',
      '    ```bash',
      '    sudo apt install lumen',
      '    ```',
      '',
      '=== "macOS"',
      '',
      '    ```bash',
      '    brew install lumen',
      '    ```',
    ].join('\n');
    const site = await loadDocsFolder(
      fixture({ 'mkdocs.yml': 'site_name: Lumen\n', 'docs/install.md': md('Install', body) }),
    );
    const t = text(page(site, 'install'));
    expect(t).toContain('Windows:\nInstall the Visual Studio Build Tools first.');
    expect(t).toContain('macOS:\n\n```bash\nbrew install lumen\n```');
    expect(t).not.toContain('!!!');
    expect(t).not.toContain('````');
    // A plain Markdown folder is not an MkDocs site: the same text stays as CommonMark reads it.
    const plain = await loadDocsFolder(fixture({ 'install.md': md('Install', body) }));
    expect(text(page(plain, 'install'))).toContain('!!! warning');
  });

  it('reads Docusaurus admonitions (both title forms) and tab labels as the site shows them', async () => {
    const config = "export default { title: 'Rocket', presets: [['classic', { docs: {} }]] };\n";
    const intro = [
      ':::tip Default region',
      'Rocket deploys to eu-west-1 unless told otherwise.',
      '',
      '```bash',
      'rocket deploy --region eu-west-1',
      '```',
      ':::',
      '',
      ':::warning[Secrets]',
      'Never commit the `.env` file.',
      ':::',
      '',
      'Keep the ratio at 16:9 and read the note:this part too.',
    ].join('\n');
    const tabs = [
      "import Tabs from '@theme/Tabs';",
      "import TabItem from '@theme/TabItem';",
      '',
      '<Tabs>',
      '  <TabItem value="toml" label="TOML">',
      '',
      'Set `region` in `rocket.toml`.',
      '',
      '  </TabItem>',
      '</Tabs>',
    ].join('\n');
    const site = await loadDocsFolder(
      fixture({
        'docusaurus.config.js': config,
        'docs/intro.md': md('Intro', intro),
        'docs/config.mdx': md('Config', tabs),
      }),
    );
    const t = text(page(site, 'docs/intro'));
    // Title, text and code as blocks of their own, as the admonition shows them.
    expect(t).toContain(
      'Default region\n\nRocket deploys to eu-west-1 unless told otherwise.\n\n```bash\nrocket deploy --region eu-west-1\n```',
    );
    expect(t).toContain('Secrets\n\nNever commit the `.env` file.');
    expect(t).not.toContain(':::');
    // Colons in prose survive the directive syntax.
    expect(t).toContain('Keep the ratio at 16:9 and read the note:this part too.');
    expect(text(page(site, 'docs/config'))).toContain('TOML\n\nSet `region` in `rocket.toml`.');
  });

  it('reads VitePress containers as the site shows them, with no `:::` left in the text', async () => {
    // As VitePress 1.6.4 renders them: the title, then the body as paragraphs of its own.
    const body = [
      'In 2024 the obsidian scheduler replaced the old cron runner.',
      '',
      '::: tip Pro tip',
      'The tangerine flag speeds up the walrus bundle by half.',
      ':::',
      '',
      '::: details Click to see the hidden details',
      'The lighthouse index rebuilds nightly.',
      ':::',
    ].join('\n');
    const site = await loadDocsFolder(
      fixture({
        '.vitepress/config.mts': 'export default { title: "Acme" };\n',
        'guide/setup.md': md('Setup', body),
      }),
    );
    const t = text(page(site, 'guide/setup.html'));
    expect(t).toContain('Pro tip:\nThe tangerine flag speeds up the walrus bundle by half.');
    expect(t).toContain('Click to see the hidden details:\nThe lighthouse index rebuilds nightly.');
    expect(t).not.toContain(':::');
  });

  it('reads VitePress include directives as the built page shows them, and re-reads a page when what it includes changes', async () => {
    const root = fixture({
      '.vitepress/config.mts': 'export default { title: "Acme" };\n',
      'guide/setup.md': md(
        'Setup',
        'Intro.\n\n<!--@include: ../parts/shared.md-->\n\n<!--@include: ../parts/gone.md-->',
      ),
      'parts/shared.md':
        '---\ntitle: Shared\n---\n## Shared setup\n\nThe albatross plugin feeds the gulls.\n',
    });
    const first = await loadDocsFolder(root);
    const setup = page(first, 'guide/setup.html');
    expect(text(setup)).toContain('The albatross plugin feeds the gulls.');
    // The included heading is the built page's: its anchor is there (VitePress 1.6.4 gives it id="shared-setup").
    expect(setup.chunks.map((c) => c.anchor)).toContain('shared-setup');
    expect(first.warnings.map((w) => w.message)).toEqual([
      'include "../parts/gone.md" in guide/setup.md names parts/gone.md, which does not exist; left out',
    ]);

    writeFileSync(
      path.join(root, 'guide/setup.md'),
      md('Setup', 'Intro.\n\n<!--@include: ../parts/shared.md-->'),
    );
    const known = Object.fromEntries((await loadDocsFolder(root)).pages.map((p) => [p.path, p.contentHash]));
    const again = await loadDocsFolder(root, { known });
    expect(again.pages.filter((p) => !p.reused)).toEqual([]);
    writeFileSync(
      path.join(root, 'parts/shared.md'),
      '## Shared setup\n\nThe pelican plugin feeds the gulls.\n',
    );
    const changed = await loadDocsFolder(root, { known });
    expect(
      changed.pages
        .filter((p) => !p.reused)
        .map((p) => p.path)
        .sort(),
    ).toEqual(['guide/setup.html', 'parts/shared.html']);
    expect(text(page(changed, 'guide/setup.html'))).toContain('The pelican plugin feeds the gulls.');
  });

  it("keeps a code fence's title, as the site shows it above the code (a code group's tabs, a file name)", async () => {
    const group = [
      'Install it:',
      '',
      '::: code-group',
      '```sh [npm]',
      'npm add -D vitepress',
      '```',
      '```sh [pnpm]',
      'pnpm add -D vitepress',
      '```',
      ':::',
      '',
      '```js title="docusaurus.config.js"',
      'export default {};',
      '```',
    ].join('\n');
    const site = await loadDocsFolder(
      fixture({
        '.vitepress/config.mts': 'export default { title: "Acme" };\n',
        'guide/install.md': md('Install', group),
      }),
    );
    const t = text(page(site, 'guide/install.html'));
    expect(t).toContain('npm\n\n```sh\nnpm add -D vitepress\n```');
    expect(t).toContain('pnpm\n\n```sh\npnpm add -D vitepress\n```');
    expect(t).toContain('docusaurus.config.js\n\n```js\nexport default {};\n```');
  });

  it("indexes a VitePress home page's hero and features, titled by the hero", async () => {
    const home = [
      '---',
      'layout: home',
      'hero:',
      '  name: Acme VP',
      '  tagline: Fast flux capacitors for everyone',
      'features:',
      '  - title: Zephyr engine',
      '    details: Powers every Acme product with the nimbus core.',
      '---',
      '',
    ].join('\n');
    const site = await loadDocsFolder(
      fixture({ '.vitepress/config.mts': 'export default { title: "Acme" };\n', 'index.md': home }),
    );
    const p = page(site, 'index');
    expect(p.title).toBe('Acme VP');
    expect(text(p)).toContain('Fast flux capacitors for everyone');
    expect(text(p)).toContain('Zephyr engine: Powers every Acme product with the nimbus core.');
    // A plain Markdown folder knows no home layout: the front matter stays data.
    const plain = await loadDocsFolder(fixture({ 'index.md': home }));
    expect(page(plain, 'index').title).toBe('index');
  });

  it('reads Starlight asides as directives, as Starlight parses them', async () => {
    // As Starlight 0.36.3 (Astro 5.18) renders them: `<aside aria-label="Pro tip">` around the body.
    const body = [
      'Intro.',
      '',
      ':::tip[Pro tip]',
      'The tangerine flag speeds up the walrus bundle by half.',
      ':::',
      '',
      ':::caution',
      'The lighthouse index rebuilds nightly.',
      ':::',
    ].join('\n');
    const site = await loadDocsFolder(
      fixture({
        'astro.config.mjs': "export default { integrations: [starlight({ title: 'Acme' })] };\n",
        'src/content/docs/guides/setup.md': md('Setup', body),
      }),
    );
    const t = text(page(site, 'guides/setup'));
    expect(t).toContain('Pro tip\n\nThe tangerine flag speeds up the walrus bundle by half.');
    expect(t).toContain('The lighthouse index rebuilds nightly.');
    expect(t).not.toContain(':::');
  });

  it('falls back to Markdown on invalid MDX, warning with file and line', async () => {
    const root = fixture({
      'bad.mdx': '---\ntitle: Bad\n---\n\nFine line.\n\nBroken <Tag attr={ here\n\nStill here.\n',
    });
    const site = await loadDocsFolder(root);
    expect(page(site, 'bad').title).toBe('Bad');
    expect(text(page(site, 'bad'))).toContain('Still here.');
    expect(site.warnings).toHaveLength(1);
    expect(site.warnings[0]).toMatchObject({ file: 'bad.mdx', line: 7 });
  });

  it('reduces components to text, keeps code, drops ESM and expressions', async () => {
    const body = [
      'export const meta = { a: 1 };',
      '',
      'Intro {meta.a} text.',
      '',
      '<Steps>',
      '  <Step title="Install the CLI">',
      '    Run the installer.',
      '  </Step>',
      '</Steps>',
      '',
      '<Tabs>',
      '  <Tab title="macOS">',
      '    ```bash',
      '    brew install docent',
      '    ```',
      '  </Tab>',
      '</Tabs>',
      '',
      '<ParamField query="limit" type="integer" required>',
      '  Max results.',
      '',
      '  Between 1 and 50.',
      '</ParamField>',
      '',
      '<ResponseField name="items" type="object[]">',
      '  ```json',
      '  [{"id": 1}]',
      '  ```',
      '</ResponseField>',
      '',
      '<Accordion title="Why?">Because.</Accordion>',
      '<Update label="2024-05-01" description="v1.2">Released.</Update>',
    ].join('\n');
    const site = await loadDocsFolder(fixture({ 'c.mdx': md('Components', body) }));
    const t = text(page(site, 'c'));
    for (const expected of [
      'Intro text.',
      'Install the CLI',
      'Run the installer.',
      'macOS',
      '```bash\nbrew install docent\n```',
      // A field's description starts with its name, on one line or several.
      'query limit (integer, required): Max results.\n\nBetween 1 and 50.',
      // Code is no sentence to lead: the name stays a line of its own.
      'items (object[])\n\n```json\n[{"id": 1}]\n```',
      'Why?',
      'Why?: Because.',
      '2024-05-01 — v1.2: Released.',
    ]) {
      expect(t).toContain(expected);
    }
    expect(t).not.toContain('export const');
    expect(t).not.toContain('meta.a');
  });

  it('inlines snippets recursively, skips .jsx imports quietly and survives cycles', async () => {
    const root = fixture({
      'docs.json': JSON.stringify({ navigation: { pages: ['page'] } }),
      'page.mdx': [
        "import Outer from '/snippets/outer.mdx';",
        "import { Button } from '/snippets/button.jsx';",
        '',
        '# Page',
        '',
        '<Outer />',
        '',
        '<Button>Click me</Button>',
      ].join('\n'),
      'snippets/outer.mdx': "import Inner from './inner.mdx';\n\nOuter text.\n\n<Inner />\n",
      'snippets/inner.mdx': "import Outer from '/snippets/outer.mdx';\n\nInner text.\n\n<Outer />\n",
      'snippets/button.jsx': 'export const Button = () => null;',
    });
    const site = await loadDocsFolder(root);
    const p = page(site, 'page');
    expect(p.title).toBe('Page');
    const t = text(p);
    expect(t).toContain('Outer text.');
    expect(t).toContain('Inner text.');
    expect(t).toContain('Click me');
    expect(t.match(/Outer text\./g)).toHaveLength(1);
    expect(site.warnings).toHaveLength(1);
    expect(site.warnings[0]?.message).toMatch(/snippet import cycle/);
    expect(site.skipped).toBe(0);
  });

  it('changes the content hash when a snippet or a label changes', async () => {
    const files = {
      'docs.json': JSON.stringify({ navigation: { pages: ['p'] } }),
      'p.mdx': "import S from '/snippets/s.mdx';\n\n<S />\n",
      'snippets/s.mdx': 'one',
    };
    const a = (await loadDocsFolder(fixture(files))).pages[0]?.contentHash;
    const b = (await loadDocsFolder(fixture({ ...files, 'snippets/s.mdx': 'two' }))).pages[0]?.contentHash;
    const c = (await loadDocsFolder(fixture(files))).pages[0]?.contentHash;
    const labelled = fixture({
      ...files,
      'docs.json': JSON.stringify({ navigation: { versions: [{ version: 'v9', pages: ['p'] }] } }),
    });
    const d = (await loadDocsFolder(labelled)).pages[0]?.contentHash;
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).toBe(c);
    expect(b).not.toBe(a);
    expect(d).not.toBe(a);
  });

  it('reuses unchanged pages that import snippets, without parsing, and re-parses when a snippet they reach changes', async () => {
    const root = fixture({
      'docs.json': JSON.stringify({ navigation: { pages: ['p', 'q', 'broken'] } }),
      // A multi-line import, a snippet importing a snippet, a named import and a code import.
      'p.mdx':
        "import {\n  Outer,\n} from '/snippets/outer.mdx';\nimport Chart from './chart.jsx';\n\nPage p.\n",
      'q.mdx': "import Other from './snippets/inner';\n\n<Other />\n",
      'broken.mdx': "import Gone from '/snippets/gone.mdx';\n\n<Gone />\n",
      'snippets/outer.mdx': "import Inner from '/snippets/inner.mdx';\n\nOuter <Inner />\n",
      'snippets/inner.mdx': 'Inner one.',
    });
    const first = await loadDocsFolder(root);
    const known = Object.fromEntries(first.pages.map((p) => [p.path, p.contentHash]));
    const again = await loadDocsFolder(root, { known });
    // `broken` imports a missing snippet: it is parsed again, so its warning is reported again.
    expect(again.pages.filter((p) => !p.reused).map((p) => p.path)).toEqual(['broken']);
    expect(again.warnings.map((w) => w.message)).toEqual(['snippet "/snippets/gone.mdx" not found']);
    expect(again.pages.map((p) => p.contentHash)).toEqual(first.pages.map((p) => p.contentHash));

    writeFileSync(path.join(root, 'snippets/inner.mdx'), 'Inner two.');
    const changed = await loadDocsFolder(root, { known });
    // p reaches inner.mdx through outer.mdx (a named import still counts); q imports it directly.
    expect(changed.pages.filter((p) => !p.reused).map((p) => p.path)).toEqual(['p', 'q', 'broken']);
    expect(text(page(changed, 'q'))).toContain('Inner two.');
  });

  it("reads the repository's assistant instructions: .docent first, then .mintlify; long ones cut with a warning", async () => {
    const both = await loadDocsFolder(
      fixture({
        'a.md': md('A'),
        '.docent/Assistant.md': '  Prefer the CLI over the dashboard.  \n',
        '.mintlify/Assistant.md': 'Hosted instructions.',
      }),
    );
    expect(both.assistantInstructions).toEqual({
      file: '.docent/Assistant.md',
      text: 'Prefer the CLI over the dashboard.',
    });
    // Dot-folders hold no pages.
    expect(both.pages.map((p) => p.path)).toEqual(['a']);
    const hosted = await loadDocsFolder(
      fixture({ 'a.md': md('A'), '.mintlify/ASSISTANT.md': 'Upper case.' }),
    );
    expect(hosted.assistantInstructions?.text).toBe('Upper case.');
    expect(
      (await loadDocsFolder(fixture({ 'a.md': md('A'), '.docent/Assistant.md': ' \n ' })))
        .assistantInstructions,
    ).toBeNull();
    const long = await loadDocsFolder(
      fixture({ 'a.md': md('A'), '.docent/Assistant.md': 'x'.repeat(9_000) }),
    );
    expect(long.assistantInstructions?.text).toHaveLength(MAX_REPOSITORY_INSTRUCTIONS_CHARS);
    expect(long.warnings).toEqual([
      {
        file: '.docent/Assistant.md',
        message: `assistant instructions are 9000 characters; only the first ${MAX_REPOSITORY_INSTRUCTIONS_CHARS} are used (MAX_REPOSITORY_INSTRUCTIONS_CHARS)`,
      },
    ]);
  });

  it('reports progress up to the total', async () => {
    const calls: [number, number][] = [];
    await loadDocsFolder(fixture({ 'a.md': 'a', 'b.md': 'b' }), { onProgress: (d, t) => calls.push([d, t]) });
    expect(calls.at(-1)).toEqual([2, 2]);
  });

  it('throws only for a missing folder', async () => {
    await expect(loadDocsFolder(path.join(tmpdir(), 'docent-no-such-folder'))).rejects.toThrow(/not found/);
  });
});

describe('chunkPage', () => {
  it('splits at H2/H3 with breadcrumbs and github-slugger anchors, H4 stays inside', () => {
    const chunks = chunkPage({
      title: 'Install',
      description: 'How to install.',
      blocks: [
        { kind: 'heading', depth: 1, text: 'Install' },
        { kind: 'text', text: 'Intro.' },
        { kind: 'heading', depth: 2, text: 'Install' },
        { kind: 'heading', depth: 3, text: 'macOS' },
        { kind: 'text', text: 'Use brew.' },
        { kind: 'heading', depth: 4, text: 'Apple silicon' },
        { kind: 'text', text: 'Works.' },
        { kind: 'heading', depth: 2, text: 'Install' },
        { kind: 'text', text: 'Again.' },
      ],
    });
    expect(chunks).toEqual([
      { anchor: null, headings: [], text: 'How to install.\n\nIntro.' },
      { anchor: 'macos', headings: ['Install', 'macOS'], text: 'Use brew.\n\nApple silicon\n\nWorks.' },
      { anchor: 'install-2', headings: ['Install'], text: 'Again.' },
    ]);
  });

  it('splits long sections at paragraph boundaries keeping anchor and headings', () => {
    const para = (n: number): string => Array.from({ length: 150 }, (_, i) => `w${n}_${i}`).join(' ');
    const chunks = chunkPage({
      title: 'T',
      description: null,
      blocks: [
        { kind: 'heading', depth: 2, text: 'Long' },
        ...[1, 2, 3, 4].map((n) => ({ kind: 'text' as const, text: para(n) })),
      ],
    });
    expect(chunks).toHaveLength(2);
    for (const chunk of chunks) {
      expect(chunk.anchor).toBe('long');
      expect(chunk.headings).toEqual(['Long']);
      expect(chunk.text.split(/\s+/).length).toBeLessThanOrEqual(400);
    }
  });

  it(`keeps every chunk within ${MAX_CHUNK_CHARS} characters, however few its words`, () => {
    const blob = 'A'.repeat(3 * MAX_CHUNK_CHARS + 17);
    const longWords = Array.from({ length: 300 }, (_, i) => `${'x'.repeat(200)}${i}`).join(' ');
    const fenced = `\`\`\`text\n${Array.from({ length: 200 }, () => 'y'.repeat(300)).join('\n')}\n\`\`\``;
    const chunks = chunkPage({
      title: 'T',
      description: null,
      blocks: [
        { kind: 'heading', depth: 2, text: 'Blob' },
        { kind: 'text', text: blob },
        { kind: 'text', text: longWords },
        { kind: 'text', text: fenced },
        { kind: 'text', text: 'Short.' },
      ],
    });
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
    const text = chunks.map((c) => c.text).join('');
    expect(text.replace(/[^A]/g, '').length).toBe(blob.length);
    expect(text).toContain(`${'x'.repeat(200)}299`);
    for (const chunk of chunks.filter((c) => c.text.includes('y'.repeat(300))))
      expect(chunk.text).toMatch(/^```text\n[\s\S]*\n```$/);
    expect(chunks[chunks.length - 1]?.text).toContain('Short.');
    // Joins the packing does not count: one line of 50-character words, a thousand one-word paragraphs.
    // Before: chunks of 20,399 and 20,799 characters.
    const word = 'w'.repeat(49);
    for (const blocks of [
      [{ kind: 'text' as const, text: Array.from({ length: 2_000 }, () => word).join(' ') }],
      Array.from({ length: 1_000 }, () => ({ kind: 'text' as const, text: `${word}x` })),
    ]) {
      const cut = chunkPage({ title: 'T', description: null, blocks });
      expect(Math.max(...cut.map((c) => c.text.length))).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
      expect(
        cut
          .map((c) => c.text)
          .join(' ')
          .split(/\s+/).length,
      ).toBe(blocks.length === 1 ? 2_000 : 1_000);
    }
  });

  it('keeps an empty page as one chunk with its title', () => {
    expect(chunkPage({ title: 'Empty', description: null, blocks: [] })).toEqual([
      { anchor: null, headings: [], text: 'Empty' },
    ]);
  });
});
