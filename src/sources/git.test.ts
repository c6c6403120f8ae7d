import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitCommandError, runGit } from './git.ts';

/** Whether a process is still running (a zombie, dead and not yet reaped by its new parent, is not). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // The state is the field after the command's parenthesised name.
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
};

describe('a git command that is stopped', () => {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-fake-git-'));
  afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

  it('stops with the helpers it started (they went on downloading after a timeout)', async () => {
    // A git that starts a helper (as git starts git-remote-https) and waits.
    const pidFile = path.join(bin, 'helper.pid');
    fs.writeFileSync(
      path.join(bin, 'git'),
      `#!/bin/sh\nsleep 30 &\necho $! > ${JSON.stringify(pidFile)}\nwait\n`,
      { mode: 0o755 },
    );
    const run = runGit('https', ['clone', 'https://example.invalid/repo.git'], {
      env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
      timeoutMs: 500,
    });
    await expect(run).rejects.toThrow(GitCommandError);
    await expect(run).rejects.toThrow(/took longer than/);
    const helper = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(helper).toBeGreaterThan(0);
    await expect.poll(() => alive(helper), { timeout: 5_000 }).toBe(false);
  });
});
