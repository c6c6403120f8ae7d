import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containedFolder, REFUSAL, tooLargeReason } from './contained-file.ts';

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
