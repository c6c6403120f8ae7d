import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRenameat2, startSwapLoop } from '../testing/swap-loop.ts';
import { listDocsFiles } from './docs-files.ts';

describe('listDocsFiles', () => {
  let base: string;
  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'docent-docs-files-')));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('lists pages in subfolders, and leaves a linked folder unwalked', async () => {
    const root = path.join(base, 'plain');
    mkdirSync(path.join(root, 'guides'), { recursive: true });
    mkdirSync(path.join(base, 'elsewhere'));
    writeFileSync(path.join(root, 'index.md'), '# Home\n');
    writeFileSync(path.join(root, 'guides', 'start.md'), '# Start\n');
    writeFileSync(path.join(base, 'elsewhere', 'other-tenant-plan.md'), '# Theirs\n');
    symlinkSync('../elsewhere', path.join(root, 'linked'));
    expect((await listDocsFiles(root)).files.sort()).toEqual(['guides/start.md', 'index.md']);
  });

  it.skipIf(process.platform !== 'linux')(
    'holds a handle on a few folders at a time, however wide the folder',
    async () => {
      const root = path.join(base, 'wide');
      for (let i = 0; i < 3_000; i++) mkdirSync(path.join(root, `d${i}`), { recursive: true });
      writeFileSync(path.join(root, 'index.md'), '# Home\n');
      const openNow = () => readdirSync('/proc/self/fd').length;
      const before = openNow();
      let most = before;
      let listing = true;
      const sample = (): void => {
        most = Math.max(most, openNow());
        if (listing) setImmediate(sample);
      };
      sample();
      const { files } = await listDocsFiles(root);
      listing = false;
      expect(files).toEqual(['index.md']);
      // Before the bound, every subfolder was open at once (thousands).
      expect(most - before).toBeLessThan(64);
    },
    30_000,
  );

  it.skipIf(!hasRenameat2)(
    'lists no name from outside while the owner swaps a subfolder and a link in a loop',
    async () => {
      const root = path.join(base, 'race');
      mkdirSync(path.join(root, 'sub'), { recursive: true });
      mkdirSync(path.join(base, 'swap'));
      mkdirSync(path.join(base, 'outside'));
      writeFileSync(path.join(root, 'index.md'), '# Home\n');
      writeFileSync(path.join(root, 'sub', 'page.md'), '# Own\n');
      writeFileSync(path.join(base, 'outside', 'acme-merger-plan.md'), '# Theirs\n');
      symlinkSync(path.join(base, 'outside'), path.join(base, 'swap', 'sub'));
      const swaps = startSwapLoop(path.join(root, 'sub'), path.join(base, 'swap', 'sub'));
      let leaked = 0;
      let own = 0;
      let swappedThroughout = false;
      try {
        const until = Date.now() + 2_500;
        while (Date.now() < until) {
          const { files } = await listDocsFiles(root);
          if (files.some((file) => file.includes('acme-merger-plan'))) leaked += 1;
          if (files.includes('sub/page.md')) own += 1;
        }
        swappedThroughout = swaps.running();
      } finally {
        await swaps.stop();
      }
      expect(swappedThroughout).toBe(true);
      expect(leaked).toBe(0);
      expect(own).toBeGreaterThan(0);
    },
    15_000,
  );
});
