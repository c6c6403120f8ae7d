import fs from 'node:fs/promises';
import path from 'node:path';
import { isInsideRoot } from '../ingest/contained-file.ts';
import { DocsDirError } from '../tenancy/docs-dir.ts';

/** Entries of a repository's git folder looked at, at most: more is refused rather than walked. */
export const MAX_GIT_FOLDER_ENTRIES = 200_000;

/**
 * Files by which a repository's git folder reads objects or refs from another repository:
 * `git clone --no-local` follows them, so under DOCENT_DOCS_ROOT they would clone a repository outside it.
 */
export const BORROWING_FILES: readonly string[] = [
  'commondir',
  'objects/info/alternates',
  'objects/info/http-alternates',
];

/**
 * Whether a repository on this server may be cloned for an API caller: its folder is inside `root`
 * (real paths), and so is everything git reads from it. A `.git` that is a file (`gitdir: …`, as
 * worktrees and submodules have) or a link, a link anywhere in the git folder, or a file that borrows
 * another repository's objects would let git read a repository outside the root, which `clone
 * --no-local` follows: such repositories are refused. Checked by reading the files, never by running
 * git in the repository (its config could run commands). Throws DocsDirError; returns the real path
 * and the git folder. `walk: false` leaves out the walk for links, for a caller that copies the git
 * folder and refuses links as it goes (tenant-repository-copy.ts) rather than walk it twice.
 */
export async function checkLocalRepository(
  dir: string,
  root: string,
  options: { walk?: boolean } = {},
): Promise<{ real: string; gitDir: string }> {
  const realRoot = await fs.realpath(root).catch(() => {
    throw new DocsDirError(
      'the folder DOCENT_DOCS_ROOT names for this organization does not exist on the server',
    );
  });
  let real: string;
  try {
    real = await fs.realpath(dir);
  } catch {
    throw new DocsDirError(`the repository ${dir} does not exist`);
  }
  if (!isInsideRoot(realRoot, real))
    throw new DocsDirError(`the repository ${dir} is outside DOCENT_DOCS_ROOT`);
  const dotGit = path.join(real, '.git');
  const kind = await fs.lstat(dotGit).catch(() => null);
  if (kind !== null && !kind.isDirectory())
    throw new DocsDirError(
      `the repository ${dir} has a .git ${kind.isSymbolicLink() ? 'link' : 'file'}, which may lead outside DOCENT_DOCS_ROOT: clone it into a folder of its own`,
    );
  // git takes the first of <dir>/.git, <dir>, <dir>.git/.git and <dir>.git that is a repository: the
  // one checked here must be it, so it must be a whole one, and a <dir>.git beside it (which git would
  // take when the first two are not) is refused outright.
  const gitDir = kind === null ? real : dotGit;
  if (!(await isGitDir(gitDir)))
    throw new DocsDirError(
      `${dir} is not a git repository (no HEAD, objects and refs in ${path.basename(gitDir)})`,
    );
  for (const beside of [`${real}.git`, `${real}.bundle`])
    if (await fs.lstat(beside).catch(() => null))
      throw new DocsDirError(
        `the repository ${dir} has a ${path.basename(beside)} beside it, which git may read instead`,
      );
  for (const file of BORROWING_FILES) {
    if (await fs.lstat(path.join(gitDir, file)).catch(() => null))
      throw new DocsDirError(
        `the repository ${dir} borrows objects or refs from another repository (${file}): clone it into a folder of its own`,
      );
  }
  if (options.walk !== false && (await hasLink(gitDir)))
    throw new DocsDirError(
      `the repository ${dir} has a link in its git folder, which may lead outside DOCENT_DOCS_ROOT`,
    );
  return { real, gitDir };
}

/**
 * A small file's first `max` bytes as text ('' when it is not a regular file), opened without following
 * a link or waiting: checked as a file a moment before, it may be a FIFO by now (a tenant's HEAD), and a
 * blocking open would hold one of the few threads file reads share for ever.
 */
export async function readSmallFile(file: string, max: number): Promise<string> {
  const handle = await fs.open(
    file,
    fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
  );
  try {
    if (!(await handle.stat()).isFile()) return '';
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buffer, 0, max, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Bytes of HEAD read at most: a ref name or an object id, a line. */
const MAX_HEAD_BYTES = 4_096;

/**
 * A git folder as git recognises one (its is_git_directory): a HEAD file naming a ref under refs/ or an
 * object id, and objects and refs folders it can enter. Anything less and git moves on to the next
 * candidate, which would then not be the folder checked.
 */
async function isGitDir(dir: string): Promise<boolean> {
  const [head, objects, refs] = await Promise.all(
    ['HEAD', 'objects', 'refs'].map((name) => fs.lstat(path.join(dir, name)).catch(() => null)),
  );
  if (head?.isFile() !== true || head.size > MAX_HEAD_BYTES) return false;
  if (objects?.isDirectory() !== true || refs?.isDirectory() !== true) return false;
  const text = await readSmallFile(path.join(dir, 'HEAD'), MAX_HEAD_BYTES).catch(() => '');
  if (!/^ref: refs\/\S+\s*$/.test(text) && !/^[0-9a-f]{40}(?:[0-9a-f]{24})?\s*$/.test(text)) return false;
  const enter = fs.constants.R_OK | fs.constants.X_OK;
  for (const folder of ['objects', 'refs'])
    if (
      !(await fs.access(path.join(dir, folder), enter).then(
        () => true,
        () => false,
      ))
    )
      return false;
  return true;
}

/** Whether there is a symbolic link under `dir` (not following any); refuses past the entry limit. */
async function hasLink(dir: string): Promise<boolean> {
  const pending = [dir];
  let seen = 0;
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
      if (++seen > MAX_GIT_FOLDER_ENTRIES)
        throw new DocsDirError(`the repository's git folder has more than ${MAX_GIT_FOLDER_ENTRIES} entries`);
      if (entry.isSymbolicLink()) return true;
      if (entry.isDirectory()) pending.push(path.join(folder, entry.name));
    }
  }
  return false;
}
