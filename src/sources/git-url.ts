import path from 'node:path';

/**
 * What may be cloned. The URL reaches `git clone`, whose remote syntax does much more than fetch:
 * `ext::sh -c …` runs a command, `fd::` reads file descriptors, a value starting with `-` is an option
 * (`--upload-pack=…` runs a program), and a server-local path or `file://` reads whatever the server
 * can read, other tenants' clones included. So a URL is one of a few shapes, named here, or refused.
 */

export const MAX_GIT_URL_LENGTH = 2048;
export const MAX_BRANCH_LENGTH = 255;
export const MAX_SUBDIR_LENGTH = 1024;

export type GitUrlKind = 'https' | 'http' | 'ssh' | 'scp' | 'local';

export interface GitRemote {
  kind: GitUrlKind;
  /** What is stored and handed to git: the URL as given, or an absolute path for a local repository. */
  url: string;
}

export class GitSourceError extends Error {
  override name = 'GitSourceError';
}

/** Remote-helper syntax (`ext::…`, `fd::…`, `anything::…`): git would run `git-remote-<name>`. */
const TRANSPORT_PREFIX = /^[A-Za-z0-9][A-Za-z0-9+.-]*::/;
/** `user@host:path` with no `//` after the colon: ssh in git's shorthand. */
const SCP_LIKE = /^(?:[A-Za-z0-9._~-]+@)?([A-Za-z0-9][A-Za-z0-9.-]*):(?!\/\/)(.+)$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
/** `user:password@host:path`: scp-like in form, with a password git's shorthand cannot carry. */
const SCP_WITH_PASSWORD = /^[^/@:\s]+:[^/@\s]*@[^/:\s]+:/;

/**
 * Checks a git URL as given by an operator or API caller. `local`: whether a path (or `file://`) may
 * name a repository on this machine at all; the caller decides which paths (`resolveDocsDirUnderRoot`
 * for the API). Throws GitSourceError with a message safe to show the caller.
 */
export function parseGitUrl(raw: string, options: { allowLocal: boolean }): GitRemote {
  const value = raw.trim();
  if (value === '') throw new GitSourceError('git url is empty');
  if (value.length > MAX_GIT_URL_LENGTH)
    throw new GitSourceError(`git url is longer than ${MAX_GIT_URL_LENGTH} characters`);
  if (value.startsWith('-')) throw new GitSourceError('git url must not start with "-"');
  if (TRANSPORT_PREFIX.test(value))
    throw new GitSourceError('git url uses a remote helper ("…::"); use https://, ssh:// or git@host:path');
  if (/[\s\p{Cc}]/u.test(value))
    throw new GitSourceError('git url must not hold spaces or control characters');

  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'https' || scheme === 'http' || scheme === 'ssh') {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new GitSourceError(`git url is not a valid ${scheme}:// URL`);
    }
    // git percent-decodes a URL before it hands its user and host to ssh, and the URL parser leaves an
    // ssh:// host or user encoded: `ssh://%2doProxyCommand=…/x` is the option `-oProxyCommand=…` to ssh.
    const option = (part: string) => /^(?:-|%2d)/i.test(part);
    if (url.hostname === '' || option(url.hostname) || option(url.username))
      throw new GitSourceError('git url must name a host');
    if (url.pathname === '' || url.pathname === '/')
      throw new GitSourceError('git url must name a repository');
    return { kind: scheme, url: value };
  }
  if (scheme === 'file') {
    if (!options.allowLocal) throw localRefused();
    let file: string;
    try {
      file = decodeURIComponent(new URL(value).pathname);
    } catch {
      throw new GitSourceError('git url is not a valid file:// URL');
    }
    return { kind: 'local', url: path.resolve(file) };
  }
  if (scheme !== undefined)
    throw new GitSourceError(`git url scheme "${scheme}://" is not allowed; use https://, http:// or ssh://`);

  // `user:token@host:path`: git's shorthand has no password, so git would ssh to the host "user" and
  // the token would be kept and shown as part of a path. Refused, without echoing it.
  if (SCP_WITH_PASSWORD.test(value))
    throw new GitSourceError(
      'git url host:path takes no password; put a token in an https:// URL (https://user:token@host/path) or use an ssh key',
    );
  const scp = SCP_LIKE.exec(value);
  // A colon before any slash makes it scp-like to git; `./a:b` or `/a:b` stay paths.
  if (scp && !value.slice(0, value.indexOf(':')).includes('/')) {
    const repository = scp[2] ?? '';
    if (repository.startsWith('-')) throw new GitSourceError('git url path must not start with "-"');
    return { kind: 'scp', url: value };
  }
  // `git@-oProxyCommand=…:path` is scp-like in form, with a host that ssh would read as an option.
  if (/^(?:[^@/:]+@)?-[^/:]*:/.test(value)) throw new GitSourceError('git url host must not start with "-"');
  if (!options.allowLocal) throw localRefused();
  return { kind: 'local', url: path.resolve(value) };
}

function localRefused(): GitSourceError {
  return new GitSourceError(
    'git url must be https://, http://, ssh:// or git@host:path; a repository on the server is allowed only under DOCENT_DOCS_ROOT',
  );
}

/** Git ref names Docent accepts for a branch: git's own rules, plus no leading `-` (an option). */
export function parseBranch(raw: string): string {
  const branch = raw.trim();
  const bad =
    branch === '' ||
    branch.length > MAX_BRANCH_LENGTH ||
    branch.startsWith('-') ||
    branch.startsWith('/') ||
    branch.endsWith('/') ||
    branch.endsWith('.') ||
    branch.endsWith('.lock') ||
    branch.includes('..') ||
    branch.includes('//') ||
    branch.includes('@{') ||
    branch === '@' ||
    /[\s\p{Cc}~^:?*[\\]/u.test(branch) ||
    branch.split('/').some((part) => part.startsWith('.'));
  if (bad) throw new GitSourceError(`branch "${branch.slice(0, 80)}" is not a valid branch name`);
  return branch;
}

/**
 * A folder inside the repository: relative, `/`-separated, without `.` or `..` segments, so it can only
 * name something inside the clone (symlinks out are refused again on the real path before ingesting).
 * Returns '' for the whole repository.
 */
export function parseSubdir(raw: string): string {
  const trimmed = raw.trim().replace(/\\/g, '/');
  if (trimmed.length > MAX_SUBDIR_LENGTH)
    throw new GitSourceError(`subdir is longer than ${MAX_SUBDIR_LENGTH} characters`);
  if (/\p{Cc}/u.test(trimmed)) throw new GitSourceError('subdir must not hold control characters');
  if (trimmed.startsWith('/') || /^[A-Za-z]:/.test(trimmed))
    throw new GitSourceError('subdir must be a path inside the repository, not an absolute path');
  const parts = trimmed.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.some((part) => part === '..')) throw new GitSourceError('subdir must not contain ".."');
  if (parts[0] === '.git') throw new GitSourceError('subdir must not be inside .git');
  return parts.join('/');
}

/**
 * The URL as logs and API responses show it: the password or token of an https/http/ssh URL (or a
 * token given as the user name of an https URL) becomes `***`, and so does every value of its query
 * (`?private_token=…`, `?access_token=…`). Also applied to git's own messages.
 */
export function redactGitUrl(text: string): string {
  return (
    text
      // Up to the last `@` of the authority, as URL parsers read it: a password may hold a raw `@`.
      .replace(/\b(https?:\/\/)[^/\s'"]*@/gi, '$1***@')
      .replace(/\b(ssh:\/\/[^/:@\s'"]+):[^/\s'"]*@/gi, '$1:***@')
      // A `user:password@host:path` stored before such URLs were refused.
      .replace(/^([^/@:\s'"]+):[^/@\s'"]*@(?=[^/:\s'"]+:)/, '$1:***@')
      .replace(
        /\b(https?:\/\/[^\s?#'"]*\?)([^\s#'"]*)/gi,
        (_, start: string, query: string) => start + query.replace(/=[^&]*/g, '=***'),
      )
  );
}
