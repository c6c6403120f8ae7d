import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../../testing/temp-folders.ts';
import { containedFolder } from '../contained-file.ts';
import { MAX_PAGE_EXPANDED_CHARS } from '../ingest-limits.ts';
import type { Warning } from '../types.ts';
import { expandIncludes, includedFiles } from './vitepress-includes.ts';

const folder = tempFolders('docent-vp-include-');

const expand = async (root: string, file: string, sourceRoot = '') => {
  const warnings: Warning[] = [];
  const { readFileSync } = await import('node:fs');
  const source = readFileSync(path.join(root, file), 'utf8');
  const result = await expandIncludes(containedFolder(root), file, source, sourceRoot, warnings);
  return { ...result, warnings };
};

describe('VitePress includes', () => {
  // Each expected text is what VitePress 1.6.4's processIncludes makes of the same files.
  it('puts a relative include in place, without its front matter, and nested includes too', async () => {
    const root = folder({
      'guide/setup.md': '# Setup\n\n<!--@include: ../parts/basics.md-->\n\nAfter.\n',
      'parts/basics.md':
        '---\ntitle: Basics\n---\n## Shared setup\n\nRun it.\n<!-- @include: ./deeper.md -->',
      'parts/deeper.md': 'Deeper text.',
    });
    const { text, files, warnings } = await expand(root, 'guide/setup.md');
    expect(text).toBe('# Setup\n\n## Shared setup\n\nRun it.\nDeeper text.\n\nAfter.\n');
    expect(files).toEqual(['parts/basics.md', 'parts/deeper.md']);
    expect(warnings).toEqual([]);
  });

  it('starts @/ paths at srcDir, and keeps a #region or a {start,end} range of lines', async () => {
    const root = folder({
      'src/index.md': [
        '<!--@include: @/parts/code.ts#setup-->',
        '<!--@include: @parts/lines.md{2,3}-->',
        '<!--@include: ./parts/lines.md{,1}-->',
        '<!--@include: ./parts/lines.md{4,}-->',
      ].join('\n'),
      'src/parts/code.ts':
        "import x from './x';\n// #region setup\nconst app = createApp();\n// #endregion setup\nrest();\n",
      'src/parts/lines.md': 'one\ntwo\nthree\nfour',
    });
    const { text, warnings } = await expand(root, 'src/index.md', 'src');
    expect(text).toBe('const app = createApp();\ntwo\nthree\none\nfour');
    expect(warnings).toEqual([]);
  });

  it('leaves out, with a warning, what is missing, outside the folder, a cycle or a symlink out', async () => {
    const outside = folder({ 'secret.md': 'SECRET' });
    const root = folder({
      'a.md': [
        '<!--@include: ./gone.md-->',
        '<!--@include: ../../etc/passwd-->',
        '<!--@include: ./b.md-->',
        '<!--@include: ./link.md-->',
      ].join('\n'),
      'b.md': 'B <!--@include: ./a.md-->',
    });
    symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'link.md'));
    const { text, warnings } = await expand(root, 'a.md');
    expect(text).not.toContain('SECRET');
    expect(text).toContain('B <!--@include: ./a.md-->');
    expect(warnings.map((w) => w.message)).toEqual([
      'include "./gone.md" in a.md names gone.md, which does not exist; left out',
      'include "../../etc/passwd" in a.md leads out of the docs folder; left out',
      'include "./a.md" in b.md makes a cycle (a.md → b.md → a.md); left out',
      expect.stringMatching(/^include "\.\/link\.md" in a\.md cannot be read \(.+\); left out$/),
    ]);
    expect(warnings.every((w) => w.file === 'a.md')).toBe(true);
  });

  it('stops a page growing past MAX_PAGE_EXPANDED_CHARS, however often a file is included', async () => {
    const big = 'x'.repeat(Math.floor(MAX_PAGE_EXPANDED_CHARS * 0.4));
    const root = folder({
      'page.md': Array.from({ length: 5 }, () => '<!--@include: ./big.md-->').join('\n'),
      'big.md': big,
    });
    const { text, warnings } = await expand(root, 'page.md');
    expect(text.length).toBeLessThanOrEqual(MAX_PAGE_EXPANDED_CHARS);
    expect(text.split(big)).toHaveLength(3);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]?.message).toMatch(/MAX_PAGE_EXPANDED_CHARS/);
  });

  it('names the files a page includes for its content hash, an escape as null', () => {
    expect(
      includedFiles(
        'guide/a.md',
        '<!--@include: ./b.md#x-->\n<!--@include: @/c.md{1,2}-->\n<!--@include: ../../d.md-->',
        'src',
      ),
    ).toEqual(['guide/b.md', 'src/c.md', null]);
    expect(includedFiles('a.md', 'no directives', '')).toEqual([]);
  });
});
