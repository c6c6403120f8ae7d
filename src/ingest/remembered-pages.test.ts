import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadDocsFolder } from './load-docs-folder.ts';
import {
  forgetRememberedPages,
  RememberedPages,
  rememberedPageCount,
  TRUST_MARGIN_MS,
} from './remembered-pages.ts';

const write = (dir: string, rel: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
};

/** Rewrites a file with other bytes of the same size and puts its modification time back. */
const editKeepingSizeAndTime = (file: string, from: string, to: string): void => {
  const before = fs.statSync(file);
  const text = fs.readFileSync(file, 'utf8');
  expect(to).toHaveLength(from.length);
  // `touch -r` copies the times to the nanosecond (fs.utimes rounds them to what a double holds).
  const reference = `${file}.times`;
  execFileSync('touch', ['-r', file, reference]);
  fs.writeFileSync(file, text.replace(from, to));
  execFileSync('touch', ['-r', reference, file]);
  fs.rmSync(reference);
  expect(fs.statSync(file).mtimeMs).toBe(before.mtimeMs);
  expect(fs.statSync(file).size).toBe(before.size);
};

const FILES = ['guide.mdx', 'snippets/note.mdx'];
const LATER = () => Date.now() + 10 * TRUST_MARGIN_MS;

describe('RememberedPages', () => {
  let dir: string;
  beforeEach(() => {
    forgetRememberedPages();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-remembered-'));
    write(dir, 'guide.mdx', 'Guide text.\n');
    write(dir, 'snippets/note.mdx', 'A note.\n');
  });

  it('vouches for a page whose files, labels and stored hash are all the same', async () => {
    await new RememberedPages(dir, FILES).remember('guide', 'h1', ['v1'], ['en'], FILES, LATER());
    const again = new RememberedPages(dir, FILES);
    expect(await again.unchanged('guide', 'h1', ['v1'], ['en'])).toBe('h1');
    expect(await again.unchanged('guide', 'h2', ['v1'], ['en'])).toBeNull();
    expect(await again.unchanged('guide', 'h1', ['v2'], ['en'])).toBeNull();
    expect(await again.unchanged('other', 'h1', ['v1'], ['en'])).toBeNull();
  });

  it('does not vouch once any of its files changed, even with its size and modification time kept', async () => {
    await new RememberedPages(dir, FILES).remember('guide', 'h1', [], [], FILES, LATER());
    editKeepingSizeAndTime(path.join(dir, 'snippets/note.mdx'), 'A note', 'B note');
    expect(await new RememberedPages(dir, FILES).unchanged('guide', 'h1', [], [])).toBeNull();
  });

  it('does not vouch for a file that is gone or was replaced', async () => {
    await new RememberedPages(dir, FILES).remember('guide', 'h1', [], [], FILES, LATER());
    fs.rmSync(path.join(dir, 'snippets/note.mdx'));
    expect(await new RememberedPages(dir, FILES).unchanged('guide', 'h1', [], [])).toBeNull();
  });

  it('forgets the folder when its list of files changes (an import may resolve elsewhere)', async () => {
    await new RememberedPages(dir, FILES).remember('guide', 'h1', [], [], FILES, LATER());
    const more = [...FILES, 'new.mdx'];
    expect(await new RememberedPages(dir, more).unchanged('guide', 'h1', [], [])).toBeNull();
    expect(rememberedPageCount(dir)).toBe(0);
  });

  it(`does not remember files written less than ${TRUST_MARGIN_MS} ms before they were read`, async () => {
    await new RememberedPages(dir, FILES).remember('guide', 'h1', [], [], FILES, Date.now());
    expect(rememberedPageCount(dir)).toBe(0);
    expect(await new RememberedPages(dir, FILES).unchanged('guide', 'h1', [], [])).toBeNull();
  });
});

describe('re-loading a folder this process has read', () => {
  let dir: string;
  beforeAll(async () => {
    forgetRememberedPages();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-remembered-load-'));
    write(dir, 'snippets/note.mdx', 'Shared note text.\n');
    write(dir, 'plain.mdx', '---\ntitle: Plain\n---\n\nJust text about apples.\n');
    write(
      dir,
      'with-snippet.mdx',
      "---\ntitle: With snippet\n---\nimport Note from '/snippets/note.mdx';\n\n<Note />\n",
    );
    // Only files older than the trust margin are remembered: let the fixture age past it.
    await new Promise((resolve) => setTimeout(resolve, TRUST_MARGIN_MS + 200));
  });

  it('remembers the pages it read, and still sees an edit that kept size and modification time', async () => {
    const first = await loadDocsFolder(dir);
    const known = Object.fromEntries(first.pages.map((p) => [p.path, p.contentHash]));
    await loadDocsFolder(dir, { known });
    expect(rememberedPageCount(dir)).toBe(2);
    const unchanged = await loadDocsFolder(dir, { known });
    expect(unchanged.pages.every((p) => p.reused === true)).toBe(true);

    editKeepingSizeAndTime(path.join(dir, 'snippets/note.mdx'), 'Shared', 'Shored');
    editKeepingSizeAndTime(path.join(dir, 'plain.mdx'), 'apples', 'grapes');
    const edited = await loadDocsFolder(dir, { known });
    const byPath = new Map(edited.pages.map((p) => [p.path, p]));
    expect(byPath.get('with-snippet')?.reused).toBeUndefined();
    expect(
      byPath
        .get('with-snippet')
        ?.chunks.map((c) => c.text)
        .join(' '),
    ).toContain('Shored note text.');
    expect(byPath.get('plain')?.reused).toBeUndefined();
    expect(
      byPath
        .get('plain')
        ?.chunks.map((c) => c.text)
        .join(' '),
    ).toContain('grapes');
  });
});
