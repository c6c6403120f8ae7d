import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadDocsFolder } from '../load-docs-folder.ts';
import { DocsConfigError } from '../navigation.ts';

// A reader that fails outright: the stand-in for a bug meeting an input nobody foresaw.
vi.mock('./docusaurus.ts', () => ({
  readDocusaurus: async () => {
    throw new Error('unforeseen input');
  },
}));

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('a framework reader that fails', () => {
  it('fails the ingestion instead of reading the folder as plain Markdown, which would publish its drafts', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docent-reader-guard-'));
    roots.push(root);
    const files: Record<string, string> = {
      'docusaurus.config.js': 'module.exports = {};\n',
      'docs/intro.md': '# Intro\n',
      'docs/launch.md': '---\ndraft: true\n---\n# Unannounced launch\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    }
    // Before: a warning, and both pages indexed as plain Markdown, the draft among them.
    const failure = await loadDocsFolder(root).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DocsConfigError);
    expect((failure as Error).message).toMatch(
      /^docusaurus\.config\.js: cannot read the docusaurus navigation \(unforeseen input\); nothing was indexed or changed/,
    );
  });
});
