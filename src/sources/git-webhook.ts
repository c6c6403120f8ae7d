import crypto from 'node:crypto';
import { DomainError } from '../errors/domain-error.ts';
import type { Storage } from '../storage/database.ts';
import type { IngestionRunner } from '../tenancy/ingestion-runner.ts';
import { getSiteByDomain } from '../tenancy/sites.ts';
import { getGitSource, secretsMatch } from './git-sources.ts';

/** Largest push payload read: GitHub lists at most 20 commits, each with its changed files. */
export const MAX_HOOK_BODY_BYTES = 2 * 1024 * 1024;

/** The headers a push carries, as received (lower-case names). */
export interface PushHeaders {
  githubSignature?: string | undefined;
  githubEvent?: string | undefined;
  gitlabToken?: string | undefined;
  gitlabEvent?: string | undefined;
}

export type PushOutcome =
  /** Ingestion started (or, `after`, queued behind the running one whose job id this is). */
  | { kind: 'accepted'; jobId: string; after: boolean }
  /** Queued: the site's organization has as many ingestions running as it may; one ending starts it. */
  | { kind: 'waiting' }
  /** Verified, but nothing to do: another branch, a tag, a deleted branch or another event. */
  | { kind: 'ignored'; reason: 'branch' | 'event' | 'deleted'; ref: string | null }
  /** GitHub's test delivery when the hook is created. */
  | { kind: 'ping' };

/** `sha256=<hex>` of the body under the secret, compared in constant time. */
export function verifyGitHubSignature(secret: string, body: string, header: string): boolean {
  const expected = `sha256=${crypto.createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
  return secretsMatch(header.trim().toLowerCase(), expected);
}

const ZERO_SHA = /^0+$/;

/**
 * A push to a site's git source, from GitHub (`X-Hub-Signature-256`: an HMAC-SHA256 of the raw body
 * under the site's secret) or GitLab (`X-Gitlab-Token`: the secret itself). The body is read only
 * once the signature holds. A push to the source's branch starts an ingestion; anything else is
 * acknowledged and ignored, so the sender does not retry it.
 */
export async function handleGitPush(
  deps: { storage: Storage; ingestions: IngestionRunner },
  input: { domain: string; headers: PushHeaders; body: string; contentType?: string | undefined },
): Promise<PushOutcome> {
  const site = await getSiteByDomain(deps.storage, input.domain);
  const source = site ? await getGitSource(deps.storage, site.id) : undefined;
  if (!site || !source) throw new DomainError('not_found', `No site "${input.domain}" with a git source`);

  const { githubSignature, gitlabToken } = input.headers;
  let event: string | undefined;
  if (githubSignature !== undefined) {
    if (!verifyGitHubSignature(source.hook_secret, input.body, githubSignature))
      throw new DomainError('unauthenticated', 'Invalid X-Hub-Signature-256 for this site', {
        reason: 'invalid',
      });
    event = input.headers.githubEvent?.toLowerCase();
    if (event === 'ping') return { kind: 'ping' };
  } else if (gitlabToken !== undefined) {
    if (!secretsMatch(gitlabToken, source.hook_secret))
      throw new DomainError('unauthenticated', 'Invalid X-Gitlab-Token for this site', { reason: 'invalid' });
    event = input.headers.gitlabEvent?.toLowerCase();
  } else {
    throw new DomainError(
      'unauthenticated',
      "Send the push with GitHub's X-Hub-Signature-256 or GitLab's X-Gitlab-Token, made with the site's webhook secret",
      { reason: 'missing' },
    );
  }
  // Both senders name the event in a header; a sender that does not is judged by the payload alone.
  // GitLab names a tag's push "Tag Push Hook": the source's own when its branch names that tag.
  if (event !== undefined && event !== 'push' && event !== 'push hook' && event !== 'tag push hook')
    return { kind: 'ignored', reason: 'event', ref: null };

  const payload = parsePayload(input.body, input.contentType ?? '');
  const ref = typeof payload.ref === 'string' ? payload.ref.slice(0, 300) : null;
  if (ref === null) throw new DomainError('invalid_input', 'The push payload has no "ref"');
  if (typeof payload.after === 'string' && ZERO_SHA.test(payload.after))
    return { kind: 'ignored', reason: 'deleted', ref };
  // A source left on the remote's default branch learns its name at the first clone; until then every
  // branch push is taken as possibly its own.
  // A source's branch may name a tag (git clone --branch takes one): a push moving that tag is its own.
  const branch = source.branch;
  const ours =
    branch === null
      ? ref.startsWith('refs/heads/')
      : ref === `refs/heads/${branch}` || ref === `refs/tags/${branch}`;
  if (!ours) return { kind: 'ignored', reason: 'branch', ref };

  const started = await deps.ingestions.requestGit(deps.storage, site.id);
  if ('waiting' in started) return { kind: 'waiting' };
  return { kind: 'accepted', jobId: started.jobId, after: started.after };
}

/** GitHub sends JSON, or a form with the JSON in `payload` when the hook's content type says so. */
function parsePayload(body: string, contentType: string): Record<string, unknown> {
  let value: unknown;
  try {
    const form = /^application\/x-www-form-urlencoded\b/i.test(contentType);
    value = JSON.parse(form ? (new URLSearchParams(body).get('payload') ?? '') : body);
  } catch {
    throw new DomainError('invalid_input', 'The push payload is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new DomainError('invalid_input', 'The push payload is not a JSON object');
  return value as Record<string, unknown>;
}
