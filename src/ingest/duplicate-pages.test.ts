import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir } from '../testing/paths.ts';
import { tempFolders } from '../testing/temp-folders.ts';
import { loadDocsFolder } from './load-docs-folder.ts';
import type { LoadedSite } from './types.ts';

const fixture = tempFolders('docent-shared-parse-');

/** Loads the folder with and without shared parses: what is indexed must not differ in any way. */
const loadBothWays = async (root: string): Promise<{ shared: LoadedSite; alone: LoadedSite }> => {
  const shared = await loadDocsFolder(root, { analyze: true });
  const alone = await loadDocsFolder(root, { analyze: true, shareParses: false });
  expect(shared).toEqual(alone);
  return { shared, alone };
};

const sharedCount = async (root: string): Promise<number> => {
  const { streamDocsFolder } = await import('./load-docs-folder.ts');
  return (await streamDocsFolder(root, { analyze: true }, () => {})).sharedParses;
};

const guide = `---
title: Guide
---
import Note from './snippets/note.mdx';

# Guide

Install the widget. <Note />

## Configure

Set \`port\`.
`;

describe('shared parses of identical pages', () => {
  it('share between copies of a folder, snippets included, and index exactly what parsing each would', async () => {
    const root = fixture({
      'v1/guide.mdx': guide,
      'v1/snippets/note.mdx': 'Remember the **gadget**.\n',
      'v2/guide.mdx': guide,
      'v2/snippets/note.mdx': 'Remember the **gadget**.\n',
      // Same page, but its snippet says something else: not shared.
      'v3/guide.mdx': guide,
      'v3/snippets/note.mdx': 'Remember the **sprocket**.\n',
      'v4/deep/guide.mdx': guide,
      'v4/deep/snippets/note.mdx': 'Remember the **gadget**.\n',
    });
    const { shared } = await loadBothWays(root);
    expect(shared.pages.map((p) => p.path)).toEqual(['v1/guide', 'v2/guide', 'v3/guide', 'v4/deep/guide']);
    const v3 = shared.pages[2]?.chunks.map((c) => c.text).join('\n');
    expect(v3).toContain('sprocket');
    // Each copy keeps its own content hash (the next ingestion reuses it page by page).
    expect(new Set(shared.pages.map((p) => p.contentHash)).size).toBe(4);
    expect(await sharedCount(root)).toBe(2);
  });

  it('does not share where the parse depends on where the page is', async () => {
    const noTitle = 'Plain text about widgets, with no title.\n';
    const root = fixture({
      // The title of a page without one is its file name.
      'a/alpha.md': noTitle,
      'b/beta.md': noTitle,
      // `.md` and `.mdx` parse differently.
      'c/tags.md': '# Tags\n\n<Card title="x">Inside</Card> and {braces}\n',
      'd/tags.mdx': '# Tags\n\n<Card title="x">Inside</Card> and {braces}\n',
      // From `e`, both imports name one file; from `f/g`, two files with the same text.
      'e/imports.mdx':
        "import A from '/e/snippets/x.mdx';\nimport B from './snippets/x.mdx';\n\n# Imports\n\n<A />\n\n<B />\n",
      'e/snippets/x.mdx': 'Snippet text.\n',
      'f/g/imports.mdx':
        "import A from '/e/snippets/x.mdx';\nimport B from './snippets/x.mdx';\n\n# Imports\n\n<A />\n\n<B />\n",
      'f/g/snippets/x.mdx': 'Snippet text.\n',
      // The same import is missing from one copy and found in the other.
      'h/uses.mdx': "import X from './snippets/x.mdx';\n\n# Uses\n\n<X />\n",
      'i/uses.mdx': "import X from './snippets/x.mdx';\n\n# Uses\n\n<X />\n",
      'i/snippets/x.mdx': 'Snippet text.\n',
      // A warning that quotes file names (an import cycle between two snippets).
      'j/loop.mdx': "import A from './s/a.mdx';\n\n# Loop\n\n<A />\n",
      'j/s/a.mdx': "import B from './b.mdx';\n\nA says <B />\n",
      'j/s/b.mdx': "import A from './a.mdx';\n\nB says <A />\n",
      'k/loop.mdx': "import A from './s/a.mdx';\n\n# Loop\n\n<A />\n",
      'k/s/a.mdx': "import B from './b.mdx';\n\nA says <B />\n",
      'k/s/b.mdx': "import A from './a.mdx';\n\nB says <A />\n",
    });
    const { shared } = await loadBothWays(root);
    const titles = Object.fromEntries(shared.pages.map((p) => [p.path, p.title]));
    expect(titles['a/alpha']).toBe('alpha');
    expect(titles['b/beta']).toBe('beta');
    expect(shared.warnings.map((w) => w.file)).toContain('h/uses.mdx');
    expect(shared.warnings.filter((w) => w.message.includes('cycle')).map((w) => w.file)).toEqual([
      'j/s/b.mdx',
      'j/s/a.mdx',
      'k/s/b.mdx',
      'k/s/a.mdx',
    ]);
    expect(await sharedCount(root)).toBe(0);
  });

  it('share a parse with warnings, each moved to the same place in the sharing copy', async () => {
    // An import of a file missing from the folder (a root-relative import in a copy) and a snippet
    // with an invalid expression: each copy warns about its own files.
    const page =
      "import Missing from '/snippets/missing.mdx';\nimport Note from './parts/note.mdx';\n\n# Broken\n\nText here.\n\n<Note />\n\n<Missing />\n";
    const note = 'A note with {a( broken} expression.\n';
    const root = fixture({
      'one/broken.mdx': page,
      'one/parts/note.mdx': note,
      'two/broken.mdx': page,
      'two/parts/note.mdx': note,
      'three/deep/broken.mdx': page,
      'three/deep/parts/note.mdx': note,
    });
    const { shared } = await loadBothWays(root);
    expect(shared.pages.map((p) => p.path)).toEqual([
      'one/broken',
      'one/parts/note',
      'three/deep/broken',
      'three/deep/parts/note',
      'two/broken',
      'two/parts/note',
    ]);
    const byFile = (file: string) => shared.warnings.filter((w) => w.file === file).map((w) => w.message);
    for (const copy of ['one', 'two', 'three/deep']) {
      expect(byFile(`${copy}/broken.mdx`)).toEqual(['snippet "/snippets/missing.mdx" not found']);
      expect(byFile(`${copy}/parts/note.mdx`)).toEqual([expect.stringContaining('invalid MDX')]);
    }
    // The second and third copy of both the page and the snippet.
    expect(await sharedCount(root)).toBe(4);
  });

  it('share a page that is left out on purpose, and keep labels and places per page', async () => {
    const body = '---\ntitle: Same\n---\n\nThe same page in every version.\n';
    const hidden = '---\ntitle: Hidden\nnoindex: true\n---\n\nNot indexed.\n';
    const root = fixture({
      'docs.json': JSON.stringify({
        navigation: {
          versions: [
            { version: 'v2', groups: [{ group: 'Two', pages: ['v2/same', 'v2/hidden'] }] },
            { version: 'v1', groups: [{ group: 'One', pages: ['v1/same', 'v1/hidden'] }] },
          ],
        },
      }),
      'v1/same.mdx': body,
      'v2/same.mdx': body,
      'v1/hidden.mdx': hidden,
      'v2/hidden.mdx': hidden,
    });
    const { shared } = await loadBothWays(root);
    expect(shared.pages.map((p) => [p.path, p.versions, p.navGroup])).toEqual([
      ['v2/same', ['v2'], 'Two'],
      ['v1/same', ['v1'], 'One'],
    ]);
    expect(shared.skipped).toBe(2);
    expect(await sharedCount(root)).toBe(2);
  });

  it('index real pages whose root-relative snippet imports a copy breaks exactly as parsing each would', async () => {
    // unstructured-docs imports `/snippets/…` from its docs root; in a copy under a subfolder those
    // files are missing, so every such page warns, and the copies still share its parse.
    const source = corpusDir('unstructured-docs');
    const pages = readdirSync(source, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.mdx'))
      .sort()
      .filter((file) => /^import .* from ['"]\/snippets/m.test(readFileSync(path.join(source, file), 'utf8')))
      .slice(0, 24);
    expect(pages).toHaveLength(24);
    const root = fixture();
    for (const copy of ['one', 'two/nested'])
      for (const file of pages) {
        mkdirSync(path.dirname(path.join(root, copy, file)), { recursive: true });
        cpSync(path.join(source, file), path.join(root, copy, file));
      }
    const { shared } = await loadBothWays(root);
    expect(shared.pages).toHaveLength(48);
    const missing = shared.warnings.filter((w) => /^snippet "\/snippets\/.*" not found$/.test(w.message));
    expect(missing.filter((w) => w.file.startsWith('one/')).length).toBeGreaterThanOrEqual(24);
    expect(missing.filter((w) => w.file.startsWith('two/nested/')).length).toBe(
      missing.filter((w) => w.file.startsWith('one/')).length,
    );
    expect(await sharedCount(root)).toBe(24);
  });

  it('index real docs copied into one folder exactly as parsing every page would', async () => {
    const root = fixture();
    for (const copy of ['one', 'two', 'three/nested'])
      cpSync(corpusDir('ollama'), path.join(root, copy), { recursive: true });
    const { shared } = await loadBothWays(root);
    const perCopy = shared.pages.length / 3;
    expect(perCopy).toBeGreaterThan(20);
    // Every page of the second and third copy takes the first copy's parse.
    expect(await sharedCount(root)).toBe(2 * perCopy);
  });
});
