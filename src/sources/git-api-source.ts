import { resolveDocsDirUnderRoot } from '../tenancy/docs-dir.ts';
import { type GitSourceInput, MAX_POLL_MINUTES, MIN_POLL_MINUTES } from './git-sources.ts';
import { GitSourceError, parseBranch, parseGitUrl, parseSubdir } from './git-url.ts';
import { checkLocalRepository } from './local-repository.ts';

/** A git source as an admin API caller sends it (the shapes are checked by the route's schema). */
export interface RequestedGitSource {
  url: string;
  branch?: string | null | undefined;
  subdir?: string | undefined;
  pollMinutes?: number | null | undefined;
}

/**
 * A git source an API caller asked for, ready to store. Remote URLs pass the allow-list; a repository
 * on the server is allowed only inside DOCENT_DOCS_ROOT, checked on its real path as `docsDir` is, and
 * with nothing in its git folder that leads git elsewhere (local-repository.ts; throws DocsDirError
 * otherwise): an API caller must not clone the server's files or another tenant's clone. Bad input
 * throws GitSourceError.
 */
export async function resolveRequestedGitSource(
  requested: RequestedGitSource,
  docsRoot: string | null,
): Promise<GitSourceInput> {
  const remote = parseGitUrl(requested.url, { allowLocal: true });
  let url = remote.url;
  if (remote.kind === 'local') {
    const given = requested.url.trim();
    url = await resolveDocsDirUnderRoot(
      given.toLowerCase().startsWith('file://') ? decodeURIComponent(new URL(given).pathname) : given,
      docsRoot,
    );
    // resolveDocsDirUnderRoot threw without a root.
    url = (await checkLocalRepository(url, docsRoot as string)).real;
  }
  const poll = requested.pollMinutes ?? null;
  if (poll !== null && (!Number.isInteger(poll) || poll < MIN_POLL_MINUTES || poll > MAX_POLL_MINUTES))
    throw new GitSourceError(`pollMinutes must be from ${MIN_POLL_MINUTES} to ${MAX_POLL_MINUTES}`);
  return {
    url,
    branch:
      requested.branch === undefined || requested.branch === null ? null : parseBranch(requested.branch),
    subdir: requested.subdir === undefined ? '' : parseSubdir(requested.subdir),
    pollMinutes: poll,
    setBy: 'api',
  };
}
