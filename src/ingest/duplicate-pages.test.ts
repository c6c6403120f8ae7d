import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusDir } from '../testing/paths.ts';
import { loadDocsFolder } from './load-docs-folder.ts';
import type { LoadedSite } from './types.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const fixture = (files: Record<string, string>): string => {
  const root = mkdtempSync(path.join(tmpdir(), 'docent-shared-parse-'));
  roots.push(root);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
  return root;
};

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
      // A parse with a warning quotes its file: never shared.
      'h/broken.mdx': '# Broken\n\n<Unclosed>\n',
      'i/broken.mdx': '# Broken\n\n<Unclosed>\n',
    });
    const { shared } = await loadBothWays(root);
    const titles = Object.fromEntries(shared.pages.map((p) => [p.path, p.title]));
    expect(titles['a/alpha']).toBe('alpha');
    expect(titles['b/beta']).toBe('beta');
    expect(shared.warnings.filter((w) => w.file.endsWith('broken.mdx')).map((w) => w.file)).toEqual([
      'h/broken.mdx',
      'i/broken.mdx',
    ]);
    expect(await sharedCount(root)).toBe(0);
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

  it('index real docs copied into one folder exactly as parsing every page would', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docent-shared-corpus-'));
    roots.push(root);
    for (const copy of ['one', 'two', 'three/nested'])
      cpSync(corpusDir('ollama'), path.join(root, copy), { recursive: true });
    const { shared } = await loadBothWays(root);
    const perCopy = shared.pages.length / 3;
    expect(perCopy).toBeGreaterThan(20);
    // Every page of the second and third copy takes the first copy's parse.
    expect(await sharedCount(root)).toBe(2 * perCopy);
  });
});
