import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { makeFolders } from '../storage/make-folders.ts';
import { docsRootOf, storedUnderRoot, tenantsRootOf } from '../tenancy/docs-dir.ts';
import {
  folderExceeds,
  GIT_FETCH_TIMEOUT_MS,
  GitCommandError,
  MAX_CLONE_BYTES,
  runGit,
  withoutServerCredentials,
} from './git.ts';
import { type GitRemote, parseSubdir } from './git-url.ts';
import { checkLocalRepository } from './local-repository.ts';
import { type CopyOptions, copyTenantGitDir, type RepositoryCopy } from './tenant-repository-copy.ts';

/** Where a site's clone lives and what git may see: fixed per server (config.ts GitConfig). */
export interface GitWorkspace {
  /** The data folder; clones are in `<dataDir>/git/<site id>`. */
  dataDir: string;
  env: Record<string, string>;
  /** Stops the clones and fetches in progress (a server shutting down); their jobs fail. */
  signal?: AbortSignal;
  /**
   * The operator's DOCENT_DOCS_ROOT: a repository on this server inside it belongs to a tenant, who may
   * change it at any time, so it is checked again before every clone or fetch (local-repository.ts).
   */
  localRoot?: string | null;
  /**
   * `DOCENT_GIT_API_CREDENTIALS=server`: sources set over the admin API may use the server user's git
   * credentials too (git-sources.ts `usesServerCredentials`).
   */
  serverCredentialsForApiSources: boolean;
}

export interface GitCheckoutRequest {
  siteId: string;
  /** The site's organization: its folder under a per-organization DOCENT_DOCS_ROOT. */
  organizationId: string;
  remote: GitRemote;
  /** null: the remote's default branch. */
  branch: string | null;
  subdir: string;
  /** Whether git may use the server user's credentials (git-sources.ts `usesServerCredentials`). */
  serverCredentials: boolean;
}

/** What git runs with for this request. */
function envFor(workspace: GitWorkspace, request: Pick<GitCheckoutRequest, 'serverCredentials'>) {
  return request.serverCredentials ? workspace.env : withoutServerCredentials(workspace.env);
}

export interface GitCheckout {
  /** The folder to ingest: `<clone>/<subdir>`, its real path. */
  docsDir: string;
  commit: string;
  /** The branch checked out (the remote's default one when none was asked for). */
  branch: string | null;
  /** Submodules inside the docs folder, relative to it: left empty, as submodules are never fetched. */
  submodules: string[];
}

/**
 * For a repository on this server in the tenants' tree (as its path is stored): checked against the
 * site's own organization's folder, then copied for git to read (tenant-repository-copy.ts says why).
 * Null for any other URL, which git reads itself.
 */
async function tenantSource(
  docsRoot: string,
  request: GitCheckoutRequest,
  near: string,
  options: CopyOptions = {},
): Promise<RepositoryCopy | null> {
  if (!(await storedUnderRoot(request.remote.url, tenantsRootOf(docsRoot)))) return null;
  const orgRoot = docsRootOf(docsRoot, request.organizationId) as string;
  // The copy refuses links itself as it reads the git folder: the check need not walk it first.
  const { gitDir } = await checkLocalRepository(request.remote.url, orgRoot, { walk: false });
  return copyTenantGitDir(gitDir, orgRoot, near, options);
}

/**
 * A site's clone folder. Named by the site's id, which Docent made, never by anything a caller chose,
 * so no URL or branch can steer where git writes.
 */
export function cloneFolder(dataDir: string, siteId: string): string {
  if (!/^[A-Za-z0-9_]{1,64}$/.test(siteId)) throw new GitCommandError('invalid site id for a clone folder');
  return path.join(path.resolve(dataDir), 'git', siteId);
}

/**
 * Brings the site's clone to the head of its branch: a shallow clone the first time (or when the URL
 * changed), else a shallow fetch of the branch and a forced checkout of it, with files no commit
 * holds removed. Returns the folder to ingest and the commit it holds.
 */
export async function syncClone(workspace: GitWorkspace, request: GitCheckoutRequest): Promise<GitCheckout> {
  const dir = cloneFolder(workspace.dataDir, request.siteId);
  const { kind } = request.remote;
  const env = envFor(workspace, request);
  const run = (args: string[], extra: { cwd?: string; watch?: string; long?: boolean } = {}) =>
    runGit(kind, args, {
      env,
      ...(extra.cwd ? { cwd: extra.cwd } : {}),
      ...(extra.watch ? { watchFolder: extra.watch } : {}),
      ...(extra.long ? { timeoutMs: GIT_FETCH_TIMEOUT_MS } : {}),
      ...(workspace.signal ? { signal: workspace.signal } : {}),
    });

  makeFolders(path.dirname(dir));
  const copy =
    kind === 'local' && workspace.localRoot
      ? await tenantSource(workspace.localRoot, request, path.dirname(dir), {
          ...(workspace.signal ? { signal: workspace.signal } : {}),
        })
      : null;
  try {
    return await syncFrom(copy?.url ?? null, dir, run, request, env);
  } finally {
    await copy?.remove();
  }
}

/** `syncClone` reading the remote, or `copy` (a private copy of a tenant's repository) in its place. */
async function syncFrom(
  copy: string | null,
  dir: string,
  run: (args: string[], extra?: { cwd?: string; watch?: string; long?: boolean }) => Promise<string>,
  request: GitCheckoutRequest,
  env: Record<string, string>,
): Promise<GitCheckout> {
  const { kind } = request.remote;
  let branch = request.branch;
  if (await reusableClone(dir, request.remote, env)) {
    // A clone kept while its site's branch was cleared (`sites set-git` without `--branch`) is checked out
    // detached, so the branch is the remote's default, learnt from the remote itself.
    branch ??= await remoteDefaultBranch(run, dir, copy ?? 'origin');
    await run(
      [
        'fetch',
        '--depth',
        '1',
        '--no-tags',
        '--no-recurse-submodules',
        '--',
        copy ?? 'origin',
        branch ?? 'HEAD',
      ],
      { cwd: dir, watch: dir, long: true },
    );
    try {
      // Watched like the fetch: a few MB of fetched objects can check out as gigabytes of files.
      await run(['checkout', '--quiet', '--force', '--detach', 'FETCH_HEAD'], { cwd: dir, watch: dir });
      await run(['clean', '-ffdxq'], { cwd: dir });
    } catch (error) {
      // A checkout stopped half-way (too large, too slow) leaves a work tree of neither commit, and its
      // files on the disk: the clone goes, and the next attempt clones again.
      await fs.rm(dir, { recursive: true, force: true });
      throw error;
    }
  } else {
    makeFolders(path.dirname(dir));
    // Cloned beside the final folder and moved in place: a failed clone never leaves half a folder
    // that the next run would take for a clone.
    const staging = `${dir}.tmp-${crypto.randomBytes(4).toString('hex')}`;
    try {
      await run(
        [
          'clone',
          '--depth',
          '1',
          '--single-branch',
          '--no-tags',
          '--no-recurse-submodules',
          ...(kind === 'local' ? ['--no-local'] : []),
          ...(request.branch === null ? [] : ['--branch', request.branch]),
          '--',
          copy ?? request.remote.url,
          staging,
        ],
        { watch: staging, long: true },
      );
      // The clone knows its repository by the URL stored, not by the copy it was made from.
      if (copy !== null) await run(['remote', 'set-url', 'origin', request.remote.url], { cwd: staging });
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rename(staging, dir);
    } finally {
      await fs.rm(staging, { recursive: true, force: true });
    }
  }
  // The watcher samples; a repository that grew past the limit between samples is caught here.
  if (await folderExceeds(dir, MAX_CLONE_BYTES)) {
    await fs.rm(dir, { recursive: true, force: true });
    throw new GitCommandError(
      `the repository is larger than ${Math.round(MAX_CLONE_BYTES / 1024 / 1024)} MB; its clone was removed`,
    );
  }
  const commit = (
    await run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: dir }).catch(() => '')
  ).trim();
  // git clones an empty repository without complaint; there is nothing to check out. The clone goes, so
  // the next attempt clones again (a fetch into it would fail with git's own "couldn't find remote ref").
  if (commit === '') {
    await fs.rm(dir, { recursive: true, force: true });
    throw new GitCommandError('the repository has no commits yet: nothing to ingest');
  }
  branch ??=
    (await run(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: dir }).catch(() => '')).trim() || null;
  const docsDir = await containedSubdir(dir, request.subdir);
  return { docsDir, commit, branch, submodules: await submodulesIn(run, dir, docsDir) };
}

/** Mode of a gitlink, the tree entry a submodule is: a commit of another repository, not a folder. */
const GITLINK_MODE = '160000';

/**
 * The submodules under `docsDir`, relative to it. Never fetched (another repository, chosen by the
 * repository's author), each is an empty folder: its pages were missing without a word.
 */
async function submodulesIn(
  run: (args: string[], extra: { cwd?: string }) => Promise<string>,
  dir: string,
  docsDir: string,
): Promise<string[]> {
  const under = path.relative(await fs.realpath(dir), docsDir);
  const listed = await run(['ls-files', '--stage', '-z', '--', under === '' ? '.' : under], { cwd: dir });
  return listed
    .split('\0')
    .filter((entry) => entry.startsWith(`${GITLINK_MODE} `))
    .map((entry) => entry.slice(entry.indexOf('\t') + 1))
    .map((file) => (under === '' ? file : path.posix.relative(under.split(path.sep).join('/'), file)));
}

/** The branch the remote's HEAD names (`git ls-remote --symref`), or null when it names none. */
async function remoteDefaultBranch(
  run: (args: string[], extra: { cwd?: string; long?: boolean }) => Promise<string>,
  dir: string,
  remote: string,
): Promise<string | null> {
  const listed = await run(['ls-remote', '--symref', remote, 'HEAD'], { cwd: dir, long: true });
  return /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(listed)?.[1] ?? null;
}

/** Whether `dir` holds a clone of this remote (a clone of another URL is replaced, not fetched into). */
async function reusableClone(dir: string, remote: GitRemote, env: Record<string, string>): Promise<boolean> {
  try {
    await fs.access(path.join(dir, '.git'));
  } catch {
    return false;
  }
  const origin = await runGit(remote.kind, ['config', '--get', 'remote.origin.url'], { env, cwd: dir }).catch(
    () => '',
  );
  return origin.trim() === remote.url;
}

/**
 * `<clone>/<subdir>` when its real path is still inside the clone and outside `.git`: a subdir is
 * checked as text when stored, and a symlink in the repository could still lead it elsewhere.
 */
export async function containedSubdir(cloneDir: string, subdir: string): Promise<string> {
  const root = await fs.realpath(cloneDir);
  const relative = parseSubdir(subdir);
  let real: string;
  try {
    real = await fs.realpath(path.join(root, relative));
  } catch {
    throw new GitCommandError(`subdir "${relative}" does not exist in the repository`);
  }
  const inside = path.relative(root, real);
  if (inside.startsWith('..') || path.isAbsolute(inside))
    throw new GitCommandError(`subdir "${relative}" leads outside the repository`);
  if (inside === '.git' || inside.startsWith(`.git${path.sep}`))
    throw new GitCommandError(`subdir "${relative}" is inside .git`);
  if (!(await fs.stat(real)).isDirectory()) throw new GitCommandError(`subdir "${relative}" is not a folder`);
  return real;
}

/**
 * The remote answered, and holds no branch or tag of the source's name (deleted or renamed there): not a
 * passing failure like an unreachable host, so the poller tells the site's owner (git-poller.ts).
 */
export class MissingRemoteRefError extends GitCommandError {
  override name = 'MissingRemoteRefError';
}

/**
 * The commit at the head of the branch on the remote (`git ls-remote`), without fetching anything. A
 * source's "branch" may name a tag, as `git clone --branch` allows: then the commit the tag points at
 * (peeled, as the checkout is). Looking under refs/heads alone failed every poll of a tag source.
 */
export async function remoteHead(
  workspace: GitWorkspace,
  request: Omit<GitCheckoutRequest, 'subdir'>,
  signal?: AbortSignal,
): Promise<string> {
  const { remote, branch } = request;
  // In the order git clone prefers them: a branch over a tag of the same name.
  const refs =
    branch === null ? ['HEAD'] : [`refs/heads/${branch}`, `refs/tags/${branch}^{}`, `refs/tags/${branch}`];
  // A tenant's repository: its refs, copied as a fetch copies the repository, never read by git itself.
  const near = path.join(path.resolve(workspace.dataDir), 'git');
  if (remote.kind === 'local' && workspace.localRoot) makeFolders(near);
  const copy =
    remote.kind === 'local' && workspace.localRoot
      ? await tenantSource(workspace.localRoot, { ...request, subdir: '' }, near, {
          refsOnly: true,
          ...(signal ? { signal } : {}),
        })
      : null;
  const out = await runGit(remote.kind, ['ls-remote', '--', copy?.url ?? remote.url, ...refs], {
    env: envFor(workspace, request),
    ...(signal ? { signal } : {}),
  }).finally(() => copy?.remove());
  const listed = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [sha, name] = line.trim().split('\t');
    if (sha && name && /^[0-9a-f]{40,64}$/.test(sha)) listed.set(name, sha);
  }
  const sha = refs.map((ref) => listed.get(ref)).find((found) => found !== undefined);
  if (sha === undefined)
    throw new MissingRemoteRefError(
      `git ls-remote found ${branch === null ? 'no HEAD' : `no branch or tag "${branch}"`} on the remote`,
    );
  if (copy !== null && sha === listed.get(`refs/tags/${branch}`))
    return (await peeledInClone(workspace, request, sha)) ?? sha;
  return sha;
}

/**
 * The commit a tag object names, read in the site's own clone (Docent's folder, which a fetch of the tag
 * filled): a tenant's annotated tag whose object is packed is listed unpeeled by the refs-only copy, and
 * taken for a new commit at every poll. Null when the clone lacks it (the tag moved: the fetch gets it).
 */
async function peeledInClone(
  workspace: GitWorkspace,
  request: Omit<GitCheckoutRequest, 'subdir'>,
  sha: string,
): Promise<string | null> {
  const dir = cloneFolder(workspace.dataDir, request.siteId);
  if (!(await fs.stat(path.join(dir, '.git')).catch(() => null))) return null;
  const out = await runGit('local', ['rev-parse', '--verify', '--quiet', `${sha}^{commit}`], {
    cwd: dir,
    env: envFor(workspace, request),
  }).catch(() => '');
  const peeled = out.trim();
  return /^[0-9a-f]{40,64}$/.test(peeled) ? peeled : null;
}

/** Removes a site's clone (its source changed to a folder, or it was deleted). */
export async function removeClone(dataDir: string, siteId: string): Promise<void> {
  await fs.rm(cloneFolder(dataDir, siteId), { recursive: true, force: true });
}
