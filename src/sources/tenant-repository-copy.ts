import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isInsideRoot, openedInside } from '../ingest/contained-file.ts';
import { DocsDirError } from '../tenancy/docs-dir.ts';
import { GIT_FETCH_TIMEOUT_MS, GIT_QUICK_TIMEOUT_MS, MAX_CLONE_BYTES } from './git.ts';
import { BORROWING_FILES, MAX_GIT_FOLDER_ENTRIES, readSmallFile } from './local-repository.ts';

export interface RepositoryCopy {
  /** The copy's git folder: what git clones or fetches from. */
  url: string;
  remove(): Promise<void>;
}

/**
 * A private copy of a tenant's checked git folder (local-repository.ts), for git to read instead of the
 * tenant's own path. git opens the path it is given itself, long after the check, and the tenant can
 * swap the repository for a link to another one in between (`renameat2` in a loop): git then read a
 * repository the check never saw. The copy is made file by file, each file opened without following a
 * link and checked once open to be inside the checked git folder (contained-file.ts `openedInside`), so
 * a swap during the copy makes it fail, not read elsewhere; git then reads a folder no tenant can change.
 * `orgRoot` is the organization's folder the git folder must still be in; `near` is a folder of
 * Docent's own (the clones' folder) to put the copy in.
 */
export async function copyTenantGitDir(
  gitDir: string,
  orgRoot: string,
  near: string,
  options: CopyOptions = {},
): Promise<RepositoryCopy> {
  const deadline = Date.now() + (options.refsOnly ? GIT_QUICK_TIMEOUT_MS : GIT_FETCH_TIMEOUT_MS);
  const realGitDir = await fs.realpath(gitDir);
  // Resolved after the check: the repository swapped since may lead anywhere but outside the tenant's own.
  if (!isInsideRoot(await fs.realpath(orgRoot), realGitDir))
    throw new DocsDirError('the repository now leads outside DOCENT_DOCS_ROOT');
  const copy = path.join(near, `.source-${crypto.randomBytes(6).toString('hex')}`);
  const remove = () => fs.rm(copy, { recursive: true, force: true });
  let bytes = 0;
  let entries = 0;
  const buffer = Buffer.alloc(COPY_CHUNK_BYTES);
  const tagRefs: string[] = [];
  try {
    const pending = [''];
    for (let rel = pending.pop(); rel !== undefined; rel = pending.pop()) {
      await fs.mkdir(path.join(copy, rel), { recursive: true });
      for (const entry of await fs.readdir(path.join(realGitDir, rel), { withFileTypes: true })) {
        options.signal?.throwIfAborted();
        if (++entries > MAX_GIT_FOLDER_ENTRIES || Date.now() > deadline)
          throw new DocsDirError('the repository is too large to copy (its git folder has too many entries)');
        const child = path.join(rel, entry.name);
        const name = child.split(path.sep).join('/');
        // As the check refuses them (local-repository.ts): git would read another repository through them.
        if (BORROWING_FILES.includes(name))
          throw new DocsDirError('the repository borrows objects or refs from another repository');
        // The config is Docent's (below); only refs and HEAD are wanted for a head's commit.
        if (NOT_COPIED.has(name) || (options.refsOnly && !isRef(name))) continue;
        if (entry.isDirectory()) pending.push(child);
        else if (entry.isFile()) {
          bytes += await copyFile(realGitDir, child, path.join(copy, child), MAX_CLONE_BYTES - bytes, buffer);
          if (options.refsOnly && name.startsWith('refs/tags/')) tagRefs.push(child);
        } else
          throw new DocsDirError("the repository's git folder holds something other than files and folders");
      }
    }
    await fs.mkdir(path.join(copy, 'objects'), { recursive: true });
    if (tagRefs.length > 0) await copyTagObjects(realGitDir, copy, tagRefs, buffer);
    await fs.writeFile(path.join(copy, 'config'), await ownConfig(realGitDir));
  } catch (error) {
    await remove();
    // Names met on the way may be another tenant's (a folder swapped for a link): none are repeated.
    if (error instanceof DocsDirError || options.signal?.aborted) throw error;
    throw new DocsDirError('the repository changed while it was read');
  }
  return { url: copy, remove };
}

/** Files of the git folder the copy does without: the tenant's config (git follows its `include`s). */
const NOT_COPIED = new Set(['config', 'config.worktree']);

/** Parts of a git folder that hold branches and tags: enough for `ls-remote` of a branch, a tag or HEAD. */
function isRef(name: string): boolean {
  return (
    name === 'HEAD' ||
    name === 'packed-refs' ||
    name === 'refs' ||
    name === 'refs/heads' ||
    name.startsWith('refs/heads/') ||
    name === 'refs/tags' ||
    name.startsWith('refs/tags/')
  );
}

/** Bytes of a loose object a tag ref names, at most: an annotated tag's object is a few hundred. */
const MAX_TAG_OBJECT_BYTES = 65_536;

/**
 * The loose objects the copied tag refs name. `ls-remote` peels an annotated tag (`refs/tags/v1^{}`, the
 * commit a site's "branch" `v1` stands for) by reading its object, or from `packed-refs`, which says so
 * for packed tags; a loose tag ref (a tag made or fetched since the last `git gc`) named an object the
 * refs-only copy lacked, so polling found no such tag. A tag whose object is packed is still listed, not
 * peeled (remoteHead peels it in the site's own clone).
 */
async function copyTagObjects(realGitDir: string, copy: string, tagRefs: readonly string[], buffer: Buffer) {
  for (const ref of tagRefs) {
    const sha = (await fs.readFile(path.join(copy, ref), 'utf8')).trim();
    if (!/^[0-9a-f]{40}$|^[0-9a-f]{64}$/.test(sha)) continue;
    const rel = path.join('objects', sha.slice(0, 2), sha.slice(2));
    const target = path.join(copy, rel);
    // Packed (no loose file), named by two tags (copied already), or no tag's (a lightweight tag of a
    // large blob): left out, the tag listed unpeeled.
    const found = await fs.lstat(path.join(realGitDir, rel)).catch(() => null);
    if (found === null || !found.isFile() || found.size > MAX_TAG_OBJECT_BYTES) continue;
    if (await fs.lstat(target).catch(() => null)) continue;
    await fs.mkdir(path.dirname(target), { recursive: true });
    await copyFile(realGitDir, rel, target, MAX_TAG_OBJECT_BYTES, buffer);
  }
}

export interface CopyOptions {
  /**
   * Only what names branches and tags (HEAD, packed-refs, refs/heads, refs/tags, the loose objects of
   * the tags), for a head's commit.
   */
  refsOnly?: boolean;
  /** Stops the copy (a server shutting down). */
  signal?: AbortSignal;
}

/** Bytes copied per read: a file is never held whole (a sparse 1 GB file cost 1.1 GB of memory). */
const COPY_CHUNK_BYTES = 1024 * 1024;

/**
 * The copy's config: only what git needs to read its objects (the repository format and, for a
 * SHA-256 repository, its object format), never the tenant's own, whose `include.path` made git read
 * any file on the server and print its lines in errors a tenant sees, or wait on a FIFO for ever.
 */
async function ownConfig(realGitDir: string): Promise<string> {
  const theirs = await readSmallFile(path.join(realGitDir, 'config'), MAX_CONFIG_BYTES).catch(() => '');
  const sha256 = /^\s*objectformat\s*=\s*sha256\s*$/im.test(theirs);
  return sha256
    ? '[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n'
    : '[core]\n\trepositoryformatversion = 0\n\tbare = true\n';
}

/** Bytes of the tenant's config looked at, at most. */
const MAX_CONFIG_BYTES = 65_536;

async function copyFile(
  realGitDir: string,
  rel: string,
  target: string,
  budget: number,
  buffer: Buffer,
): Promise<number> {
  const source = path.join(realGitDir, rel);
  const handle = await fs.open(
    source,
    fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
  );
  try {
    const opened = await handle.stat({ bigint: true });
    if (!opened.isFile())
      throw new DocsDirError("the repository's git folder holds something other than files and folders");
    const size = Number(opened.size);
    if (size > budget)
      throw new DocsDirError(`the repository is larger than ${Math.round(MAX_CLONE_BYTES / 1024 / 1024)} MB`);
    if ((await openedInside(handle.fd, opened, realGitDir, source)) !== null)
      throw new DocsDirError('the repository changed while it was read');
    // Up to the size it had when checked: a file still growing is not followed past it.
    const out = await fs.open(target, 'wx');
    try {
      let copied = 0;
      while (copied < size) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - copied), copied);
        if (bytesRead === 0) break;
        await out.write(buffer, 0, bytesRead);
        copied += bytesRead;
      }
      return copied;
    } finally {
      await out.close();
    }
  } finally {
    await handle.close();
  }
}
