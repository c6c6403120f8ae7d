import { execFileSync } from 'node:child_process';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRenameat2, startSwapLoop } from '../testing/swap-loop.ts';
import { containedFolder, openedInside, procFdPath, REFUSAL, tooLargeReason } from './contained-file.ts';

const MARKER = 'CONTAINED-FILE-SECRET-7f3a';

describe('containedFolder', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(() => {
    base = mkdtempSync(path.join(tmpdir(), 'docent-contained-'));
    root = path.join(base, 'docs');
    outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.md'), `# ${MARKER}\n`);
    writeFileSync(path.join(root, 'page.md'), '# Page\n');
    writeFileSync(path.join(root, 'sub', 'deep.md'), '# Deep\n');
    writeFileSync(path.join(root, 'ten.md'), '0123456789');
    writeFileSync(path.join(root, 'empty.md'), '');
    writeFileSync(path.join(root, 'large.md'), 'é'.repeat(150_000));
    symlinkSync('../page.md', path.join(root, 'sub', 'alias.md'));
    symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'secret.md'));
    symlinkSync('../../outside/secret.md', path.join(root, 'sub', 'relative-secret.md'));
    symlinkSync('/proc/self/environ', path.join(root, 'environ.md'));
    symlinkSync(outside, path.join(root, 'out'));
    symlinkSync('sub', path.join(root, 'in'));
    symlinkSync('loop-b.md', path.join(root, 'loop-a.md'));
    symlinkSync('loop-a.md', path.join(root, 'loop-b.md'));
    symlinkSync('nowhere.md', path.join(root, 'dangling.md'));
    execFileSync('mkfifo', [path.join(root, 'fifo.md')]);
    symlinkSync('fifo.md', path.join(root, 'to-fifo.md'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const read = (rel: string, max = 1024) => containedFolder(root).readText(rel, max);

  it('reads regular files, and symlinks that stay inside the folder', async () => {
    expect(await read('page.md')).toMatchObject({ ok: true, text: '# Page\n' });
    expect(await read('sub/alias.md')).toMatchObject({ ok: true, text: '# Page\n' });
    expect(await read('in/deep.md')).toMatchObject({ ok: true, text: '# Deep\n' });
  });

  it('reads a file with a UTF-16 byte order mark as UTF-16, and anything else as UTF-8', async () => {
    const text = '# Überblick\n\nCafé ☕ 日本\n';
    const be = Buffer.from(text, 'utf16le').swap16();
    writeFileSync(
      path.join(root, 'le.md'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
    );
    writeFileSync(path.join(root, 'be.md'), Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
    expect(await read('le.md')).toMatchObject({ ok: true, text });
    expect(await read('be.md')).toMatchObject({ ok: true, text });
    expect(await read('large.md', 400_000)).toMatchObject({ ok: true, text: 'é'.repeat(150_000) });
  });

  it('works when the root itself is reached through a symlink', async () => {
    const linkedRoot = path.join(base, 'linked-docs');
    symlinkSync(root, linkedRoot);
    expect(await containedFolder(linkedRoot).readText('sub/alias.md', 1024)).toMatchObject({
      ok: true,
      text: '# Page\n',
    });
    expect((await containedFolder(linkedRoot).readText('secret.md', 1024)).ok).toBe(false);
  });

  it('refuses symlinks leaving the folder, at any depth, quoting nothing of the target', async () => {
    for (const rel of ['secret.md', 'sub/relative-secret.md', 'environ.md', 'out/secret.md']) {
      const result = await read(rel);
      expect(result, rel).toEqual({ ok: false, missing: false, reason: REFUSAL.outsideLink });
    }
    expect(await read('../outside/secret.md')).toEqual({
      ok: false,
      missing: false,
      reason: REFUSAL.outsidePath,
    });
    expect(await read('/etc/passwd')).toMatchObject({ ok: false });
    for (const reason of Object.values(REFUSAL)) {
      expect(reason).not.toContain(MARKER);
      expect(reason).not.toContain(base);
    }
  });

  it("refuses a repository's own .git files, however they are reached", async () => {
    // A git source cloned with its docs at the root: .git/config holds the remote's URL and its token.
    mkdirSync(path.join(root, '.git'), { recursive: true });
    writeFileSync(
      path.join(root, '.git', 'config'),
      `[remote "origin"]\n\turl = https://oauth2:${MARKER}@h/r.git\n`,
    );
    symlinkSync('.git/config', path.join(root, 'gitconfig.md'));
    symlinkSync('../.git/config', path.join(root, 'sub', 'config.mdx'));
    symlinkSync('.git', path.join(root, 'dotgit'));
    mkdirSync(path.join(root, 'nested', '.GIT'), { recursive: true });
    writeFileSync(path.join(root, 'nested', '.GIT', 'HEAD'), MARKER);
    for (const rel of [
      'gitconfig.md',
      'sub/config.mdx',
      'dotgit/config',
      '.git/config',
      'nested/.GIT/HEAD',
    ]) {
      const result = await read(rel);
      // Before: the page held the whole config, token included.
      expect(result, rel).toEqual({ ok: false, missing: false, reason: REFUSAL.gitInternals });
    }
    // A file merely named like it is a page like any other.
    writeFileSync(path.join(root, 'sub', '.gitignore.md'), '# Ignore\n');
    expect(await read('sub/.gitignore.md')).toMatchObject({ ok: true });
  });

  it('refuses FIFOs without waiting for a writer, directly or through a link', async () => {
    const started = Date.now();
    expect(await read('fifo.md')).toEqual({ ok: false, missing: false, reason: REFUSAL.notRegular });
    expect(await read('to-fifo.md')).toEqual({ ok: false, missing: false, reason: REFUSAL.notRegular });
    expect(await read('sub')).toEqual({ ok: false, missing: false, reason: REFUSAL.notRegular });
    expect(Date.now() - started).toBeLessThan(2_000);
  }, 5_000);

  it('reads empty files, and files larger than one read chunk whole', async () => {
    expect(await read('empty.md')).toMatchObject({ ok: true, text: '' });
    expect(await read('large.md', 300_000)).toMatchObject({ ok: true, text: 'é'.repeat(150_000) });
    expect(await read('large.md', 299_999)).toEqual({
      ok: false,
      missing: false,
      reason: tooLargeReason(299_999),
    });
  });

  it('refuses files over the limit and reads one exactly at it', async () => {
    expect(await read('ten.md', 10)).toMatchObject({ ok: true, text: '0123456789' });
    expect(await read('ten.md', 9)).toEqual({ ok: false, missing: false, reason: tooLargeReason(9) });
  });

  it('tells missing files from refused ones, and symlink loops from both', async () => {
    expect(await read('absent.md')).toEqual({ ok: false, missing: true, reason: REFUSAL.missing });
    expect(await read('dangling.md')).toEqual({ ok: false, missing: true, reason: REFUSAL.missing });
    expect(await read('loop-a.md')).toEqual({ ok: false, missing: false, reason: REFUSAL.linkLoop });
  });
});

/**
 * The folder's owner changes it while Docent reads it: a folder on the way swapped for a symlink out of
 * the folder between the path checks and the open (O_NOFOLLOW guards the last component only). Before
 * the fix, the open followed the swapped folder and the outside file was read (a probe ingested 178).
 */
describe('containedFolder while the folder changes under it', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'docent-contained-swap-')));
    root = path.join(base, 'docs');
    outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'd'), { recursive: true });
    mkdirSync(path.join(root, '.git'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(root, 'd', 'page.md'), '# Inside\n');
    writeFileSync(path.join(root, 'page.md'), '# Top\n');
    writeFileSync(path.join(outside, 'page.md'), `# ${MARKER}\n`);
    writeFileSync(path.join(root, '.git', 'page.md'), `# ${MARKER} in .git\n`);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  /** Between the checks and the open, `d` becomes a symlink to `target` (its folder set aside). */
  const swapping = (name: string, target: string) =>
    containedFolder(root, {
      beforeOpen: () => {
        renameSync(path.join(root, 'd'), path.join(root, name));
        symlinkSync(target, path.join(root, 'd'));
      },
    });
  const restore = (name: string): void => {
    rmSync(path.join(root, 'd'));
    renameSync(path.join(root, name), path.join(root, 'd'));
  };

  it('refuses a file reached through a folder swapped for a symlink after the checks', async () => {
    const result = await swapping('d-out', '../outside').readText('d/page.md', 1024);
    restore('d-out');
    expect(result).toEqual({ ok: false, missing: false, reason: REFUSAL.outsideLink });
    const intoGit = await swapping('d-git', '.git').readText('d/page.md', 1024);
    restore('d-git');
    expect(intoGit).toEqual({ ok: false, missing: false, reason: REFUSAL.gitInternals });
    // A swap that stays inside the folder is a symlink like any other inside it: followed.
    mkdirSync(path.join(root, 'e'));
    writeFileSync(path.join(root, 'e', 'page.md'), '# Also inside\n');
    const inside = await swapping('d-in', 'e').readText('d/page.md', 1024);
    restore('d-in');
    expect(inside).toMatchObject({ ok: true, text: '# Also inside\n' });
    expect(await containedFolder(root).readText('d/page.md', 1024)).toMatchObject({
      ok: true,
      text: '# Inside\n',
    });
  });

  it.skipIf(!hasRenameat2)(
    'reads nothing from outside while the owner swaps a folder and a symlink in a loop',
    async () => {
      const raceRoot = path.join(base, 'race');
      mkdirSync(path.join(raceRoot, 'd'), { recursive: true });
      writeFileSync(path.join(raceRoot, 'd', 'page.md'), '# Inside\n');
      symlinkSync('../outside', path.join(raceRoot, 'dswap'));
      const swaps = startSwapLoop(path.join(raceRoot, 'd'), path.join(raceRoot, 'dswap'));
      const folder = containedFolder(raceRoot);
      let inside = 0;
      let leaked = 0;
      let swappedThroughout = false;
      try {
        const until = Date.now() + 2_500;
        while (Date.now() < until) {
          const result = await folder.readText('d/page.md', 1024);
          if (result.ok && result.text.includes(MARKER)) leaked += 1;
          else if (result.ok) inside += 1;
        }
        swappedThroughout = swaps.running();
      } finally {
        await swaps.stop();
      }
      expect(swappedThroughout).toBe(true);
      expect(leaked).toBe(0);
      expect(inside).toBeGreaterThan(0);
    },
    15_000,
  );
});

describe('openedInside', () => {
  let base: string;
  let root: string;
  let inFile: string;
  let outFile: string;

  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'docent-opened-')));
    root = path.join(base, 'docs');
    mkdirSync(path.join(root, '.git'), { recursive: true });
    inFile = path.join(root, 'page.md');
    outFile = path.join(base, 'outside.md');
    writeFileSync(inFile, '# Inside\n');
    writeFileSync(outFile, `# ${MARKER}\n`);
    writeFileSync(path.join(root, '.git', 'config'), MARKER);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  /** The check on `file` opened, as though the path checked had been `checked`. */
  const check = async (file: string, checked: string, fdPath?: (fd: number) => Promise<string | null>) => {
    const fd = openSync(file, 'r');
    try {
      return await openedInside(fd, fstatSync(fd, { bigint: true }), root, checked, fdPath);
    } finally {
      closeSync(fd);
    }
  };
  const noProc = async (): Promise<string | null> => null;

  it.skipIf(process.platform !== 'linux')('on Linux, names the open file by /proc/self/fd', async () => {
    const fd = openSync(inFile, 'r');
    try {
      expect(await procFdPath(fd)).toBe(inFile);
    } finally {
      closeSync(fd);
    }
    expect(await procFdPath(2 ** 30)).toBeNull();
  });

  it('passes a file inside the folder, with /proc/self/fd and without', async () => {
    expect(await check(inFile, inFile)).toBeNull();
    expect(await check(inFile, inFile, noProc)).toBeNull();
  });

  it('refuses a file opened outside the folder although the path checked was inside', async () => {
    expect(await check(outFile, inFile)).toBe(REFUSAL.outsideLink);
    // Without /proc: the checked path now names another file than the one open.
    expect(await check(outFile, inFile, noProc)).toBe(REFUSAL.outsideLink);
    expect(await check(path.join(root, '.git', 'config'), inFile)).toBe(REFUSAL.gitInternals);
    // A link that names no absolute path is no file of the folder.
    expect(await check(inFile, inFile, async () => 'pipe:[1]')).toBe(REFUSAL.outsideLink);
  });

  it('without /proc, refuses when the checked path now leads through a symlink or is gone', async () => {
    const linked = path.join(root, 'linked');
    mkdirSync(path.join(root, 'real'));
    writeFileSync(path.join(root, 'real', 'page.md'), '# Real\n');
    symlinkSync('real', linked);
    // The same file, but the path checked no longer resolves to itself.
    expect(await check(path.join(root, 'real', 'page.md'), path.join(linked, 'page.md'), noProc)).toBe(
      REFUSAL.outsideLink,
    );
    expect(await check(inFile, path.join(root, 'gone.md'), noProc)).toBe(REFUSAL.outsideLink);
  });
});
