import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../testing/temp-folders.ts';
import { readFolderNavigation } from './fixture-navigation.ts';
import { MAX_FRAMEWORK_CONFIG_BYTES, MAX_SIDEBAR_DEPTH, MAX_SIDEBAR_ENTRIES } from './limits.ts';

const folder = tempFolders('docent-frameworks-');

const md = (title: string): string => `---\ntitle: ${title}\n---\n\nBody.\n`;

const read = async (root: string) => {
  const result = await readFolderNavigation(root);
  if (!result) throw new Error('no framework navigation');
  return result;
};

describe('hostile framework configs', () => {
  it('stops walking a sidebar nested a hundred deep, and still indexes the docs', async () => {
    const depth = 150;
    const sidebar = `module.exports = { s: [${"{ type: 'category', label: 'L', items: [".repeat(depth)}'intro'${']}'.repeat(depth)}] };`;
    const { nav, warnings } = await read(
      folder({
        'docusaurus.config.js': 'module.exports = {};',
        'sidebars.js': sidebar,
        'docs/intro.md': md('Intro'),
      }),
    );
    expect(nav.pages.map((p) => p.id)).toEqual(['docs/intro']);
    expect(
      warnings.some(
        (w) => w.file === 'sidebars.js' && w.message.includes(`deeper than ${MAX_SIDEBAR_DEPTH} levels`),
      ),
    ).toBe(true);
  });

  it('turns nesting too deep to parse into a warning and falls back to the folder', async () => {
    const sidebar = `module.exports = { s: ${'['.repeat(60_000)}${']'.repeat(60_000)} };`;
    const { nav, warnings } = await read(
      folder({
        'docusaurus.config.js': 'module.exports = {};',
        'sidebars.js': sidebar,
        'docs/a.md': md('A'),
      }),
    );
    expect(nav.pages.map((p) => p.id)).toEqual(['docs/a']);
    expect(warnings.some((w) => w.file === 'sidebars.js')).toBe(true);
  });

  it('caps a sidebar listing more entries than MAX_SIDEBAR_ENTRIES', async () => {
    // A one-letter id, so that the entries fit in a config file Docent reads (MAX_FRAMEWORK_CONFIG_BYTES).
    const entries = Array.from({ length: MAX_SIDEBAR_ENTRIES + 500 }, () => "'i'").join(',');
    const started = Date.now();
    const { nav, warnings } = await read(
      folder({
        'docusaurus.config.js': 'module.exports = {};',
        'sidebars.js': `module.exports = { s: [${entries}] };`,
        'docs/i.md': md('Intro'),
        'docs/other.md': md('Other'),
      }),
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(nav.pages.map((p) => p.id)).toEqual(['docs/i']);
    expect(warnings).toContainEqual({
      file: 'sidebars.js',
      message: `navigation has more than ${MAX_SIDEBAR_ENTRIES} entries; the rest is ignored`,
    });
  });

  it('treats __proto__ and constructor as category labels, not object plumbing', async () => {
    const { nav } = await read(
      folder({
        'docusaurus.config.js': 'module.exports = {};',
        'sidebars.js': "module.exports = { __proto__: ['intro'], constructor: { toString: ['more'] } };",
        'docs/intro.md': md('Intro'),
        'docs/more.md': md('More'),
      }),
    );
    expect(nav.pages.map((p) => [p.id, p.group])).toEqual([
      ['docs/intro', null],
      ['docs/more', 'toString'],
    ]);
    expect(({} as Record<string, unknown>).toString).toBe(Object.prototype.toString);
  });

  it('reads MkDocs nav sections named __proto__ as plain titles', async () => {
    const { nav } = await read(
      folder({
        'mkdocs.yml': 'nav:\n  - __proto__:\n      - a.md\n  - constructor: b.md\n',
        'docs/a.md': md('A'),
        'docs/b.md': md('B'),
      }),
    );
    expect(nav.pages.map((p) => [p.id, p.group])).toEqual([
      ['a', '__proto__'],
      ['b', null],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses configs linked from outside the folder, naming only the link', async () => {
    const outside = folder({
      'secret.js':
        "module.exports = { title: 'SECRET-TITLE', presets: [['classic', { docs: { path: 'elsewhere' } }]] };",
      'versions.json': '["SECRET-VERSION"]',
    });
    const root = folder({ 'docs/intro.md': md('Intro') });
    symlinkSync(path.join(outside, 'secret.js'), path.join(root, 'docusaurus.config.js'));
    symlinkSync(path.join(outside, 'versions.json'), path.join(root, 'versions.json'));
    const { nav, warnings } = await read(root);
    // Still a Docusaurus site (the link names the framework), read with the defaults.
    expect(nav.summary).toEqual({ kind: 'docusaurus', versions: [], languages: [], name: null });
    expect(nav.pages.map((p) => p.id)).toEqual(['docs/intro']);
    expect(warnings).toEqual([
      {
        file: 'docusaurus.config.js',
        message: 'cannot read config file (symbolic link leading outside the docs folder); ignored',
      },
      {
        file: 'versions.json',
        message: 'cannot read config file (symbolic link leading outside the docs folder); ignored',
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain(outside);
    expect(JSON.stringify(warnings)).not.toContain('SECRET');
  });

  it('reads a config that is a link to nothing as one that cannot be read, not as no config', async () => {
    const broken = folder({ 'docs/index.md': md('Home'), 'docs/drafts/plan.md': md('Plan') });
    symlinkSync(path.join(broken, 'generated', 'mkdocs.yml'), path.join(broken, 'mkdocs.yml'));
    // Read as plain Markdown, the folder would publish what its exclude_docs hides.
    await expect(read(broken)).rejects.toMatchObject({
      name: 'DocsConfigError',
      message:
        'cannot read mkdocs.yml (a symbolic link to nothing); fix it and ingest again (nothing was indexed or changed)',
    });
    const docusaurus = folder({ 'docs/intro.md': md('Intro') });
    symlinkSync(path.join(docusaurus, 'gone.js'), path.join(docusaurus, 'docusaurus.config.js'));
    const { nav, warnings } = await read(docusaurus);
    expect(nav.summary.kind).toBe('docusaurus');
    expect(warnings).toEqual([
      {
        file: 'docusaurus.config.js',
        message: 'cannot read config file (a symbolic link to nothing); ignored',
      },
    ]);
  });

  it('does not look for a link to nothing through a folder linked out of the docs folder', async () => {
    // Outside the docs folder: a dangling mkdocs.yml, reached only through a linked folder.
    const outside = folder({ 'README.md': md('Outside') });
    symlinkSync(path.join(outside, 'gone.yml'), path.join(outside, 'mkdocs.yml'));
    const root = folder({ 'index.md': md('Home') });
    symlinkSync(outside, path.join(root, 'docs'));
    // As with no link there: nothing is said of what lies outside, and no framework is found.
    expect(await readFolderNavigation(root)).toBeNull();
  });

  it('does not follow config paths that lead out of the folder', async () => {
    const outside = folder({
      'docs/leak.md': md('Leak'),
      'sidebars.js': "module.exports = { s: ['leak'] };",
    });
    const root = folder({
      'docusaurus.config.js': `module.exports = { presets: [['classic', { docs: { path: '../${path.basename(outside)}/docs', sidebarPath: '${path.join(outside, 'sidebars.js')}' } }]] };`,
      'mkdocs-unused.md': md('x'),
    });
    const { nav, warnings } = await read(root);
    // The default docs instance reads Docusaurus' default folder instead, which this site lacks.
    expect(nav.pages).toEqual([]);
    const sidebar = path.join(outside, 'sidebars.js');
    expect(warnings.map((w) => w.message)).toEqual([
      `path "../${path.basename(outside)}/docs" leads outside the docs folder; "docs" is used, the default`,
      `path "${sidebar}" is absolute; only paths inside the docs folder are read; ignored`,
      `sidebar file "${sidebar}" not found; docs are listed in folder order`,
    ]);
    const withDocs = await read(
      folder({
        'docusaurus.config.js':
          "module.exports = { presets: [['classic', { docs: { path: '../outside' } }]] };",
        'docs/intro.md': md('Intro'),
      }),
    );
    expect(withDocs.nav.pages.map((p) => p.id)).toEqual(['docs/intro']);
  });

  it("reads the framework's default folder when the docs folder setting leads out", async () => {
    const mkdocs = await read(folder({ 'mkdocs.yml': 'docs_dir: ..\n', 'docs/index.md': md('Home') }));
    expect(mkdocs.nav.pages.map((p) => p.id)).toEqual(['index']);
    expect(mkdocs.warnings.map((w) => w.message)).toEqual([
      'path ".." leads outside the docs folder; "docs" is used, the default',
    ]);
    const vitepress = await read(
      folder({ '.vitepress/config.mts': "export default { srcDir: '/etc' };", 'index.md': md('Home') }),
    );
    expect(vitepress.nav.pages.map((p) => p.id)).toEqual(['index']);
    expect(vitepress.warnings.map((w) => w.message)).toEqual([
      'path "/etc" is absolute; only paths inside the docs folder are read; "." is used, the default',
    ]);
  });

  it('survives YAML nested deeper than it reads: a mkdocs.yml fails the ingestion, naming why', async () => {
    const nav = `nav: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`;
    await expect(read(folder({ 'mkdocs.yml': nav, 'docs/index.md': md('Home') }))).rejects.toMatchObject({
      name: 'DocsConfigError',
      message: expect.stringMatching(
        /^cannot read mkdocs\.yml \(invalid YAML: .*\); fix it and ingest again/,
      ),
    });
  });
  it('keeps a slug or rewrite that climbs with .. under the site root, with a warning', async () => {
    const starlight = await read(
      folder({
        'astro.config.mjs':
          "import starlight from '@astrojs/starlight';\nexport default { integrations: [starlight({ title: 'S' })] };",
        'src/content/docs/index.md': md('Home'),
        'src/content/docs/guides/away.md': '---\ntitle: Away\nslug: ../../escape\n---\n\nBody.\n',
        // A browser reads `%2e` as a dot and `\` as `/`.
        'src/content/docs/guides/encoded.md': '---\ntitle: E\nslug: "%2e%2e/%2E%2e/encoded"\n---\n\nBody.\n',
        'src/content/docs/guides/slashes.md': "---\ntitle: S\nslug: '..\\..\\slashes'\n---\n\nBody.\n",
      }),
    );
    expect(starlight.nav.pages.map((p) => p.id).sort()).toEqual(['encoded', 'escape', 'index', 'slashes']);
    expect(starlight.warnings).toContainEqual(
      expect.objectContaining({
        message: expect.stringContaining('above the site\'s root; indexed at "escape"'),
      }),
    );
    const vitepress = await read(
      folder({
        '.vitepress/config.mts': "export default { rewrites: { 'guide/a.md': '../../../a.md' } };",
        'index.md': md('Home'),
        'guide/a.md': md('A'),
      }),
    );
    expect(vitepress.nav.pages.map((p) => p.id).sort()).toEqual(['a.html', 'index']);
  });
  it('stops front matter whose aliases expand past what its text spells out, naming the page', async () => {
    const bomb = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 8; i++)
      bomb.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
    const page = `---\ntitle: Bomb\n${bomb.join('\n')}\n---\n\nBody.\n`;
    const started = performance.now();
    const { nav, warnings } = await read(
      folder({
        'docusaurus.config.js': 'module.exports = {};',
        'docs/b0.md': page,
        'docs/b1.md': page,
        'docs/fine.md': md('Fine'),
      }),
    );
    // 9^8 values each, without the bound: a few pages ran out of memory.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(nav.pages.map((p) => p.id).sort()).toEqual(['docs/b0', 'docs/b1', 'docs/fine']);
    expect(warnings).toContainEqual({
      file: 'docs/b0.md',
      line: 1,
      message: expect.stringMatching(/^front matter expands to more than \d+ values \(aliases\); not read$/),
    });
  });

  it(`refuses a framework config over ${MAX_FRAMEWORK_CONFIG_BYTES} bytes: defaults, or a failed mkdocs.yml`, async () => {
    const big = `export default { title: 'Big', extra: [${'0,'.repeat(MAX_FRAMEWORK_CONFIG_BYTES / 2)}0] };\n`;
    const { nav, warnings } = await read(folder({ '.vitepress/config.mjs': big, 'index.md': md('Home') }));
    expect(nav.pages.map((p) => p.id)).toEqual(['index']);
    expect(warnings).toEqual([
      {
        file: '.vitepress/config.mjs',
        message: `cannot read config file (larger than ${MAX_FRAMEWORK_CONFIG_BYTES} bytes); ignored`,
      },
    ]);
    const mkdocs = `site_name: Big\nextra: [${'0,'.repeat(MAX_FRAMEWORK_CONFIG_BYTES / 2)}0]\n`;
    await expect(read(folder({ 'mkdocs.yml': mkdocs, 'docs/index.md': md('Home') }))).rejects.toMatchObject({
      name: 'DocsConfigError',
      message: `cannot read mkdocs.yml (larger than ${MAX_FRAMEWORK_CONFIG_BYTES} bytes); fix it and ingest again (nothing was indexed or changed)`,
    });
  });
});
