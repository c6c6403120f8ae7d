import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { openedInside } from '../ingest/contained-file.ts';
import { DocsDirError, isInside } from '../tenancy/docs-dir.ts';
import { MAX_CLONE_BYTES } from './git.ts';

/** Files of a git folder by which git reads another repository; the copy refuses them as the check does. */
const BORROWING = new Set(['commondir', 'objects/info/alternates', 'objects/info/http-alternates']);

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
): Promise<RepositoryCopy> {
  const realGitDir = await fs.realpath(gitDir);
  // Resolved after the check: the repository swapped since may lead anywhere but outside the tenant's own.
  if (!isInside(await fs.realpath(orgRoot), realGitDir))
    throw new DocsDirError('the repository now leads outside DOCENT_DOCS_ROOT');
  const copy = path.join(near, `.source-${crypto.randomBytes(6).toString('hex')}`);
  const remove = () => fs.rm(copy, { recursive: true, force: true });
  let bytes = 0;
  try {
    const pending = [''];
    for (let rel = pending.pop(); rel !== undefined; rel = pending.pop()) {
      await fs.mkdir(path.join(copy, rel), { recursive: true });
      for (const entry of await fs.readdir(path.join(realGitDir, rel), { withFileTypes: true })) {
        const child = path.join(rel, entry.name);
        if (BORROWING.has(child.split(path.sep).join('/')))
          throw new DocsDirError(`the repository borrows objects or refs from another repository (${child})`);
        if (entry.isDirectory()) pending.push(child);
        else if (entry.isFile())
          bytes += await copyFile(realGitDir, child, path.join(copy, child), MAX_CLONE_BYTES - bytes);
        else
          throw new DocsDirError(
            `the repository's git folder holds something other than files and folders (${child})`,
          );
      }
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return { url: copy, remove };
}

async function copyFile(realGitDir: string, rel: string, target: string, budget: number): Promise<number> {
  const source = path.join(realGitDir, rel);
  const handle = await fs.open(
    source,
    fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
  );
  try {
    const opened = await handle.stat({ bigint: true });
    if (!opened.isFile())
      throw new DocsDirError(`the repository's git folder holds something other than files (${rel})`);
    if (Number(opened.size) > budget)
      throw new DocsDirError(`the repository is larger than ${Math.round(MAX_CLONE_BYTES / 1024 / 1024)} MB`);
    if ((await openedInside(handle.fd, opened, realGitDir, source)) !== null)
      throw new DocsDirError(`the repository changed while it was read (${rel} led outside it)`);
    const content = await handle.readFile();
    await fs.writeFile(target, content);
    return content.byteLength;
  } finally {
    await handle.close();
  }
}
