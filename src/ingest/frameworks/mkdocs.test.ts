import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureLine, readFixture, readFolderNavigation } from './fixture-navigation.ts';
import { dirnameToTitle, mkdocsUrl } from './mkdocs.ts';

const rows = (nav: Awaited<ReturnType<typeof readFixture>>['nav']) =>
  nav.pages.map((p) => [p.id, p.file ?? null, p.group, p.versions.join(','), p.languages.join(',')]);

describe('MkDocs URLs', () => {
  it('maps index.md and README.md to their folder, and honours use_directory_urls', () => {
    expect(mkdocsUrl('index.md', true, false)).toBe('');
    expect(mkdocsUrl('guide/setup.md', true, false)).toBe('guide/setup');
    expect(mkdocsUrl('guide/index.md', true, false)).toBe('guide');
    expect(mkdocsUrl('guide/README.md', true, false)).toBe('guide');
    // Beside an index.md, README.md is a page of its own.
    expect(mkdocsUrl('guide/README.md', true, true)).toBe('guide/README');
    expect(mkdocsUrl('guide/setup.md', false, false)).toBe('guide/setup.html');
    expect(mkdocsUrl('guide/index.md', false, false)).toBe('guide/index.html');
  });

  it('titles folders like the automatic nav', () => {
    expect(dirnameToTitle('user-guide')).toBe('User guide');
    expect(dirnameToTitle('API_Reference')).toBe('API Reference');
  });
});

describe('MkDocs Material site with suffix translations and mike', () => {
  it('follows nav (sections as groups), then unlisted pages; untranslated pages are French too', async () => {
    const { nav, fileOf } = await readFixture('mkdocs-material-i18n');
    expect(nav.summary).toEqual({
      kind: 'mkdocs',
      versions: ['latest'],
      languages: ['en', 'fr'],
      name: 'Acme CLI',
    });
    expect(rows(nav)).toEqual([
      // mike serves the checkout under its version (here the default alias): `latest/…`.
      ['latest', 'docs/index.md', null, 'latest', 'en'],
      [
        'latest/getting-started/install',
        'docs/getting-started/install.md',
        'Getting started',
        'latest',
        'en',
      ],
      // Not translated: the French site shows these, so a French reader's search must find them.
      ['latest/getting-started', 'docs/getting-started/README.md', 'Getting started', 'latest', 'en,fr'],
      ['latest/reference/commands', 'docs/reference/commands.md', 'Commands', 'latest', 'en,fr'],
      // Built by MkDocs though not in nav.
      ['latest/about', 'docs/about.md', null, 'latest', 'en,fr'],
      ['latest/faq/general', 'docs/faq/general.md', null, 'latest', 'en,fr'],
      ['latest/fr', 'docs/index.fr.md', null, 'latest', 'fr'],
      [
        'latest/fr/getting-started/install',
        'docs/getting-started/install.fr.md',
        'Getting started',
        'latest',
        'fr',
      ],
    ]);
    for (const p of nav.pages) expect(fileOf.get(p.id), p.id).toBeDefined();
  });

  it('tolerates !!python/name and !ENV tags and warns about a nav entry with no file', async () => {
    const { warnings } = await readFixture('mkdocs-material-i18n');
    expect(warnings).toEqual([
      {
        file: 'mkdocs.yml',
        line: fixtureLine('mkdocs-material-i18n', 'mkdocs.yml', 'removed.md'),
        message: 'nav lists "removed.md", which is not in docs/',
      },
    ]);
  });
});

describe('MkDocs site without nav, folder translations, no directory URLs', () => {
  it('orders pages like the automatic nav, folders as groups, .html URLs', async () => {
    const { nav, warnings } = await readFixture('mkdocs-folder-nonav');
    expect(nav.summary).toEqual({
      kind: 'mkdocs',
      versions: [],
      languages: ['en', 'fr'],
      name: 'Folder Docs',
    });
    expect(rows(nav)).toEqual([
      ['index.html', 'content/en/index.md', null, '', 'en'],
      ['about.html', 'content/en/about.md', null, '', 'en,fr'],
      ['user-guide/index.html', 'content/en/user-guide/index.md', 'User guide', '', 'en,fr'],
      ['user-guide/writing.html', 'content/en/user-guide/writing.md', 'User guide', '', 'en'],
      ['fr/index.html', 'content/fr/index.md', null, '', 'fr'],
      ['fr/user-guide/writing.html', 'content/fr/user-guide/writing.md', 'User guide', '', 'fr'],
    ]);
    expect(warnings).toEqual([]);
  });
});

describe('MkDocs config naming what it cannot use', () => {
  it('names the folder it reads after refusing docs_dir, and says INHERIT is not read', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docent-mkdocs-escape-'));
    const files: Record<string, string> = {
      'mkdocs.yml':
        'site_name: Escape\nINHERIT: ../../secret/base.yml\ndocs_dir: ../../secret\nnav:\n  - missing.md\n',
      'docs/index.md': '# Home\n',
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      writeFileSync(path.join(root, name), text);
    }
    const read = await readFolderNavigation(root);
    expect(read?.warnings).toEqual([
      {
        file: 'mkdocs.yml',
        message: 'path "../../secret" leads outside the docs folder; "docs" is used, the default',
      },
      {
        file: 'mkdocs.yml',
        line: 2,
        message: 'INHERIT (a parent config) is not read; only the settings of this file are used',
      },
      // Before: "which is not in ../../secret/", the folder refused.
      { file: 'mkdocs.yml', line: 5, message: 'nav lists "missing.md", which is not in docs/' },
    ]);
  });
});

describe('MkDocs files left out of the build', () => {
  it('does not index exclude_docs, its defaults (/templates/) or draft_docs; ! takes a file back', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docent-mkdocs-exclude-'));
    const files: Record<string, string> = {
      'mkdocs.yml': [
        'site_name: Excludes',
        'exclude_docs: |',
        '  internal/',
        '  secret.md',
        '  !internal/public.md',
        '  /guide/*.tmp.md',
        'draft_docs: |',
        '  drafts/',
        '  *.wip.md',
        'not_in_nav: |',
        '  orphan.md',
        'nav:',
        '  - index.md',
        '  - internal/plan.md',
        '',
      ].join('\n'),
      'docs/index.md': '# Home\n',
      'docs/orphan.md': '# Orphan\n',
      'docs/secret.md': '# Secret\n',
      'docs/guide/secret.md': '# Also secret\n',
      'docs/guide/a.tmp.md': '# Tmp\n',
      'docs/other/guide/b.tmp.md': '# Not anchored here\n',
      'docs/internal/plan.md': '# Plan\n',
      'docs/internal/public.md': '# Public\n',
      'docs/drafts/d.md': '# Draft\n',
      'docs/page.wip.md': '# Wip\n',
      'docs/templates/t.md': '# Template\n',
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      writeFileSync(path.join(root, name), text);
    }
    const read = await readFolderNavigation(root);
    // Before: every one of these files was indexed, the nav's internal/plan.md first after the home page.
    expect(read?.nav.pages.map((p) => p.id)).toEqual([
      'index',
      'internal/public',
      'orphan',
      'other/guide/b.tmp',
    ]);
    expect(read?.warnings).toEqual([
      { file: 'mkdocs.yml', line: 14, message: 'nav lists "internal/plan.md", which is not in docs/' },
    ]);
  });

  it('names an exclude_docs it cannot read', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docent-mkdocs-exclude-'));
    mkdirSync(path.join(root, 'docs'));
    writeFileSync(path.join(root, 'mkdocs.yml'), 'site_name: X\nexclude_docs: !ENV EXCLUDES\n');
    writeFileSync(path.join(root, 'docs/index.md'), '# Home\n');
    const read = await readFolderNavigation(root);
    expect(read?.nav.pages.map((p) => p.id)).toEqual(['index']);
    expect(read?.warnings).toEqual([
      {
        file: 'mkdocs.yml',
        line: 2,
        message: expect.stringMatching(/^exclude_docs is .*; not applied$/),
      },
    ]);
  });
});

describe('MkDocs README.md beside index.md', () => {
  it('is not indexed, as MkDocs builds both to the folder page and keeps index.md', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docent-mkdocs-readme-'));
    const files: Record<string, string> = {
      'mkdocs.yml': 'site_name: Readme\n',
      'docs/index.md': '# Home\n',
      'docs/README.md': '# Repository notes\n',
      'docs/guide/index.md': '# Guide\n',
      'docs/guide/README.md': '# Guide notes\n',
      'docs/setup/README.md': '# Setup\n',
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      writeFileSync(path.join(root, name), text);
    }
    const read = await readFolderNavigation(root);
    // Before: README and guide/README were indexed as pages MkDocs never builds.
    expect(read?.nav.pages.map((p) => [p.id, p.file])).toEqual([
      ['index', 'docs/index.md'],
      ['guide', 'docs/guide/index.md'],
      ['setup', 'docs/setup/README.md'],
    ]);
    expect(read?.warnings).toEqual([
      {
        file: 'docs/README.md',
        message: 'not built by MkDocs beside an index.md in the same folder; not indexed',
      },
      {
        file: 'docs/guide/README.md',
        message: 'not built by MkDocs beside an index.md in the same folder; not indexed',
      },
    ]);
  });
});
