import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDocsFolder } from './load-docs-folder.ts';

function site(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-known-'));
  fs.mkdirSync(path.join(dir, 'snippets'));
  fs.writeFileSync(path.join(dir, 'snippets/note.mdx'), 'Shared note text.\n');
  fs.writeFileSync(path.join(dir, 'plain.mdx'), '---\ntitle: Plain\n---\n\nJust text.\n');
  fs.writeFileSync(
    path.join(dir, 'with-snippet.mdx'),
    "---\ntitle: With snippet\n---\nimport Note from '/snippets/note.mdx';\n\n<Note />\n",
  );
  fs.writeFileSync(
    path.join(dir, 'changelog.mdx'),
    '---\ntitle: Changelog\nnoindex: true\n---\n\nLots of text.\n',
  );
  return dir;
}

describe('loading with known content hashes', () => {
  it('reuses unchanged pages, with or without imports, and parses the changed ones', async () => {
    const dir = site();
    const first = await loadDocsFolder(dir);
    expect(first.pages.map((p) => p.path).sort()).toEqual(['plain', 'with-snippet']);
    expect(first.skipped).toBe(1);
    const known = Object.fromEntries(first.pages.map((p) => [p.path, p.contentHash]));

    const second = await loadDocsFolder(dir, { known });
    const byPath = new Map(second.pages.map((p) => [p.path, p]));
    expect(byPath.get('plain')?.reused).toBe(true);
    expect(byPath.get('plain')?.contentHash).toBe(known.plain);
    expect(byPath.get('plain')?.chunks).toEqual([]);
    // A page with an import is known unchanged from its source and the snippets its imports reach.
    expect(byPath.get('with-snippet')?.reused).toBe(true);
    expect(byPath.get('with-snippet')?.contentHash).toBe(known['with-snippet']);
    expect(second.skipped).toBe(1);

    // An edited page no longer matches and is parsed again; so is one whose snippet changed.
    fs.appendFileSync(path.join(dir, 'plain.mdx'), '\nMore.\n');
    fs.writeFileSync(path.join(dir, 'snippets/note.mdx'), 'Changed note.\n');
    const third = await loadDocsFolder(dir, { known });
    const plain = third.pages.find((p) => p.path === 'plain');
    expect(plain?.reused).toBeUndefined();
    expect(plain?.contentHash).not.toBe(known.plain);
    expect(plain?.chunks.map((c) => c.text).join(' ')).toContain('More.');
    const withSnippet = third.pages.find((p) => p.path === 'with-snippet');
    expect(withSnippet?.reused).toBeUndefined();
    expect(withSnippet?.contentHash).not.toBe(known['with-snippet']);
    expect(withSnippet?.chunks.map((c) => c.text).join(' ')).toContain('Changed note.');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
