import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../testing/temp-folders.ts';
import { WarningSink } from '../warnings.ts';
import { FIXTURES, readFolderNavigation } from './fixture-navigation.ts';
import { readFrameworkNavigation } from './read-framework-navigation.ts';

const folder = tempFolders('docent-detect-');

describe('readFrameworkNavigation', () => {
  it('is null for a plain Markdown folder, a Mintlify folder and an Astro site without Starlight', async () => {
    const sink = new WarningSink();
    expect(await readFrameworkNavigation(folder({ 'a.md': '# A' }), sink)).toBeNull();
    expect(await readFrameworkNavigation(folder({ 'docs.json': '{}', 'a.mdx': '# A' }), sink)).toBeNull();
    const astro = folder({
      'astro.config.mjs': 'export default { integrations: [mdx()] };',
      'src/pages/a.md': '# A',
    });
    expect(await readFrameworkNavigation(astro, sink)).toBeNull();
    expect(sink.list('.')).toEqual([]);
  });

  it('finds the site in website/ or docs/ when pointed at the repository root', async () => {
    const vitepress = await readFolderNavigation(
      folder({
        'docs/.vitepress/config.js': 'export default {};',
        'docs/guide.md': '# Guide',
        'README.md': '# Repo',
      }),
    );
    expect(vitepress?.nav.summary.kind).toBe('vitepress');
    // Ids are URL paths under the site, files are paths under the folder Docent was given.
    expect(vitepress?.nav.pages.map((p) => [p.id, p.file])).toEqual([['guide.html', 'docs/guide.md']]);
    const mkdocs = await readFolderNavigation(
      folder({ 'docs/mkdocs.yml': 'site_name: Nested\n', 'docs/docs/a.md': '# A' }),
    );
    expect(mkdocs?.nav.pages.map((p) => [p.id, p.file])).toEqual([['a', 'docs/docs/a.md']]);
  });

  it('lists the folder itself when not handed the file list', async () => {
    const root = path.join(FIXTURES, 'mkdocs-folder-nonav');
    const listed = await readFolderNavigation(root);
    const unlisted = await readFrameworkNavigation(root, new WarningSink());
    expect(unlisted?.pages).toEqual(listed?.nav.pages);
  });

  it('reads a code config that is not valid JS as absent, with the line of the error', async () => {
    const result = await readFolderNavigation(
      folder({
        '.vitepress/config.js': 'export default {\n  title: "x",\n  themeConfig: { sidebar: [ }\n};\n',
        'a.md': '# A',
        'b.md': '# B',
      }),
    );
    expect(result?.nav.pages.map((p) => p.id)).toEqual(['a.html', 'b.html']);
    expect(result?.warnings).toEqual([
      expect.objectContaining({
        file: '.vitepress/config.js',
        line: 3,
        message: expect.stringMatching(
          /^cannot read \.vitepress\/config\.js statically \(.*\); using defaults$/,
        ),
      }),
    ]);
  });

  it('fails on a mkdocs.yml that is not YAML or not a mapping, as mkdocs build does, naming the line', async () => {
    // Read with MkDocs' defaults, the folder would publish what exclude_docs and draft_docs hide.
    const hidden = { 'docs/a.md': '# A', 'docs/drafts/b.md': '# B' };
    for (const [config, message] of [
      [
        'site_name: x\nexclude_docs: drafts/\nnav: [a.md\n',
        /^cannot read mkdocs\.yml \(invalid YAML: .*\) \(line 4\); fix it and ingest again \(nothing was indexed or changed\)$/,
      ],
      ['- site_name: x\n', /^mkdocs\.yml is a list, not a mapping \(line 1\); fix it and ingest again/],
    ] as const) {
      await expect(readFolderNavigation(folder({ 'mkdocs.yml': config, ...hidden }))).rejects.toMatchObject({
        name: 'DocsConfigError',
        message: expect.stringMatching(message),
      });
    }
  });

  it('reads an empty mkdocs.yml (or one of comments only) with MkDocs defaults, as mkdocs does', async () => {
    // MkDocs loads no document as an empty mapping: nothing it would exclude or list is lost.
    for (const config of ['', '# settings to come\n']) {
      const result = await readFolderNavigation(
        folder({ 'mkdocs.yml': config, 'docs/index.md': '# Home', 'docs/guide/setup.md': '# Setup' }),
      );
      expect(result?.nav.pages.map((p) => [p.id, p.group])).toEqual([
        ['index', null],
        ['guide/setup', 'Guide'],
      ]);
      expect(result?.warnings).toEqual([]);
    }
  });
});
