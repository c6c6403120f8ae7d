import { type RequestedGitSource, resolveRequestedGitSource } from '../../../sources/git-api-source.ts';
import type { GitSourceInput } from '../../../sources/git-sources.ts';
import { GitSourceError } from '../../../sources/git-url.ts';
import { DocsDirError, docsRootOf, resolveDocsDirUnderRoot } from '../../../tenancy/docs-dir.ts';
import { DocentError } from '../../errors.ts';
import type { AdminDeps } from './admin-deps.ts';

/** A request's `git`: 400 for a URL, branch or subdir the rules refuse, 403 for a path outside the root. */
export async function gitSourceOfRequest(
  deps: AdminDeps,
  organizationId: string,
  requested: RequestedGitSource,
): Promise<GitSourceInput> {
  if (deps.ingestions.git === null)
    throw new DocentError('unavailable', 'This server has no data folder for git clones');
  try {
    return await resolveRequestedGitSource(requested, docsRootOf(deps.docsRoot, organizationId));
  } catch (error) {
    if (error instanceof GitSourceError)
      throw new DocentError('invalid_request', error.message, {
        details: [{ path: 'git', message: error.message }],
      });
    if (error instanceof DocsDirError)
      throw new DocentError('forbidden', error.message.replace(/^docsDir/, 'git url'));
    throw error;
  }
}

/** A request's `docsDir`, inside the organization's DOCENT_DOCS_ROOT (403 otherwise). */
export async function docsDirOfRequest(
  deps: AdminDeps,
  organizationId: string,
  requested: string,
): Promise<string> {
  try {
    return await resolveDocsDirUnderRoot(requested, docsRootOf(deps.docsRoot, organizationId));
  } catch (error) {
    if (error instanceof DocsDirError) throw new DocentError('forbidden', error.message);
    throw error;
  }
}

/** `docsDir` and `git` name the same thing, the site's one source: a request sends one or the other. */
export function refuseBothSources(body: { docsDir?: unknown; git?: unknown }): void {
  if (body.docsDir !== undefined && body.git !== undefined)
    throw new DocentError('invalid_request', 'Send docsDir or git, not both', {
      details: [{ path: 'git', message: 'cannot be sent with docsDir' }],
    });
}
