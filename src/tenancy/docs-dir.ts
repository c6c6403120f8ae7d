import fs from 'node:fs/promises';
import path from 'node:path';
import { isInsideRoot } from '../ingest/contained-file.ts';

export class DocsDirError extends Error {
  override name = 'DocsDirError';
}

/** In DOCENT_DOCS_ROOT, stands for the organization making the request (a path segment of its own). */
export const ORGANIZATION_SEGMENT = '{organization}';

/**
 * The folder tree an organization's API requests may name: DOCENT_DOCS_ROOT, with `{organization}`
 * replaced by the organization's id. Without that segment every organization shares one tree (one
 * tenant, or tenants that trust each other); with it each is confined to its own folder.
 */
export function docsRootOf(docsRoot: string | null, organizationId: string): string | null {
  // Ids are Docent's own (ids.ts); anything else must never become part of a path.
  if (!/^[A-Za-z0-9_]{1,64}$/.test(organizationId)) throw new DocsDirError('invalid organization id');
  return docsRoot === null ? null : docsRoot.split(ORGANIZATION_SEGMENT).join(organizationId);
}

/**
 * The tree every organization's folder is in: DOCENT_DOCS_ROOT up to `{organization}` (all of it
 * without one). A stored folder or repository in it is a tenant's, and is checked against its own
 * organization's folder, also when it was accepted before the root named `{organization}`.
 */
export function tenantsRootOf(docsRoot: string | null): string | null {
  if (docsRoot === null) return null;
  const at = docsRoot.indexOf(ORGANIZATION_SEGMENT);
  return at < 0 ? docsRoot : path.dirname(`${docsRoot.slice(0, at)}x`);
}

/**
 * Where an API caller may point an ingestion: only inside the operator's `DOCENT_DOCS_ROOT`. The
 * check is on real paths, so `..` segments and symlinks cannot step outside the root. Without a
 * root, the API cannot name folders at all (the CLI, run by the operator, can).
 */
export async function resolveDocsDirUnderRoot(requested: string, docsRoot: string | null): Promise<string> {
  if (docsRoot === null) {
    throw new DocsDirError(
      'This server does not let the API choose docs folders; its operator can set DOCENT_DOCS_ROOT, or set the folder with the CLI',
    );
  }
  let root: string;
  try {
    root = await fs.realpath(path.resolve(docsRoot));
  } catch {
    throw new DocsDirError('DOCENT_DOCS_ROOT does not exist on the server');
  }
  const outside = () => new DocsDirError(`docsDir "${requested}" is outside DOCENT_DOCS_ROOT`);
  const candidate = path.resolve(root, requested);
  // A path outside the root as written is refused before it is looked at: resolving it first told the
  // caller whether any path on the server exists ("does not exist" or "outside"), /etc or /root/.ssh
  // alike. The root as configured counts as well as its real path (a root reached through a link).
  if (
    !isInsideRoot(root, candidate) &&
    !isInsideRoot(path.resolve(docsRoot), path.resolve(docsRoot, requested))
  )
    throw outside();
  let real: string;
  try {
    real = await fs.realpath(candidate);
  } catch {
    throw new DocsDirError(`docsDir "${requested}" does not exist under DOCENT_DOCS_ROOT`);
  }
  if (!isInsideRoot(root, real)) throw outside();
  if (!(await fs.stat(real)).isDirectory()) throw new DocsDirError(`docsDir "${requested}" is not a folder`);
  return real;
}

/**
 * Whether a stored folder lies inside `docsRoot` as written: an API caller's folder, stored by its real
 * path then, which its owner can have swapped for a link since, so it is resolved again before each
 * ingestion. A folder the operator set outside the root with the CLI is the operator's to trust.
 */
export async function storedUnderRoot(dir: string, docsRoot: string | null): Promise<boolean> {
  if (docsRoot === null) return false;
  // A root that cannot be resolved is compared as written: its folders are then checked (and refused),
  // not trusted.
  const root = await fs.realpath(path.resolve(docsRoot)).catch(() => path.resolve(docsRoot));
  return isInsideRoot(root, path.resolve(dir));
}
