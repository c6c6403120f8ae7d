import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Real git repositories for tests: made in a temp folder, committed to with a fixed author. */
function git(dir: string, ...args: string[]): string {
  return execFileSync(
    'git',
    [
      '-c',
      'user.name=Docent Test',
      '-c',
      'user.email=test@docent.invalid',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim();
}

/** Writes the files (path → content; null deletes) and commits them; returns the new commit. */
export function commitFiles(dir: string, files: Record<string, string | null>, message = 'docs'): string {
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(dir, file);
    if (content === null) fs.rmSync(full, { force: true });
    else {
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, content);
    }
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** A new repository at `dir` on `branch` holding `files` in one commit; returns that commit. */
export function createRepo(dir: string, files: Record<string, string>, branch = 'main'): string {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', branch);
  return commitFiles(dir, files, 'first');
}

/** Switches the repository to a branch, creating it from the current commit when it does not exist. */
export function checkoutBranch(dir: string, branch: string): void {
  try {
    git(dir, 'checkout', '-q', branch);
  } catch {
    git(dir, 'checkout', '-q', '-b', branch);
  }
}

/** Three small Markdown pages under `docs/`, and a README outside it. */
export function sampleDocs(): Record<string, string> {
  return {
    'README.md': '# Repository\n\nNot docs.\n',
    'docs/index.md': '# Welcome\n\nWidgets are small tools.\n',
    'docs/install.md': '# Install\n\nRun the installer to add widgets.\n',
    'docs/usage.md': '# Usage\n\nTurn the widget on with the switch.\n',
  };
}
