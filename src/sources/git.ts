import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type GitUrlKind, redactGitUrl } from './git-url.ts';

/** Longest a clone or fetch may run before it is killed and its ingestion fails. */
export const GIT_FETCH_TIMEOUT_MS = 5 * 60_000;
/**
 * Longest `git ls-remote` (a poll) and local commands may run; under the shortest poll interval (one
 * minute), so a poll's claim outlasts its check.
 */
export const GIT_QUICK_TIMEOUT_MS = 30_000;
/** Largest clone kept on disk (work tree and `.git` together); a larger one is deleted and its ingestion fails. */
export const MAX_CLONE_BYTES = 1024 * 1024 * 1024;
/**
 * Most memory (the data segment: heap and anonymous maps) each git process may take. A remote can send
 * an endless ref advertisement, which git-remote-http keeps in memory, not on disk where MAX_CLONE_BYTES
 * is watched: it grew 500 MB a second until the machine ran out. Checking out a large file streams, so a
 * clone of MAX_CLONE_BYTES needs far less.
 */
export const MAX_GIT_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;
/** While a clone or fetch runs, how often its folder is measured against MAX_CLONE_BYTES. */
const SIZE_CHECK_INTERVAL_MS = 2_000;
/** Most output read from one git command: ref listings and error messages, never file contents. */
const MAX_GIT_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Characters of git's error output kept in a job's error message. */
const MAX_GIT_MESSAGE_CHARS = 600;

export class GitCommandError extends Error {
  override name = 'GitCommandError';
}

/** Transports git may use for each kind of URL, redirects included (protocol.allow is "never" for the rest). */
const PROTOCOLS: Record<GitUrlKind, string[]> = {
  https: ['https'],
  // A plain-http server often redirects to https.
  http: ['http', 'https'],
  ssh: ['ssh'],
  scp: ['ssh'],
  local: ['file'],
};

export interface GitRunOptions {
  /** The environment git runs with (config.ts GitConfig.env); nothing else of Docent's is passed. */
  env: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  /** Fails the command when this folder outgrows MAX_CLONE_BYTES (or `maxBytes`) while it runs. */
  watchFolder?: string;
  maxBytes?: number;
  /** Memory limit of each git process (default MAX_GIT_MEMORY_BYTES); tests lower it. */
  maxMemoryBytes?: number;
  /** Ends the command early (a server shutting down). */
  signal?: AbortSignal;
}

/**
 * Settings on every git command Docent runs: only the remote's own transport is allowed (so a redirect
 * or a submodule cannot switch to `file://` or `ext::`), no LFS download, no submodules, no prompts.
 */
function safetyConfig(kind: GitUrlKind): string[] {
  return [
    '-c',
    'protocol.allow=never',
    ...PROTOCOLS[kind].flatMap((protocol) => ['-c', `protocol.${protocol}.allow=always`]),
    '-c',
    'submodule.recurse=false',
    '-c',
    'filter.lfs.smudge=',
    '-c',
    'filter.lfs.process=',
    '-c',
    'filter.lfs.required=false',
    '-c',
    'credential.interactive=false',
  ];
}

function gitEnvironment(env: Record<string, string>): Record<string, string> {
  return {
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_LFS_SKIP_SMUDGE: '1',
    // An ssh remote must not wait for a password or a host-key answer nobody will type. An operator's
    // own GIT_SSH program is theirs to make so: git would prefer any GIT_SSH_COMMAND over it.
    ...(env.GIT_SSH_COMMAND === undefined && env.GIT_SSH !== undefined
      ? {}
      : { GIT_SSH_COMMAND: env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes' }),
    // The operator's global settings (credentials, proxies) apply; the system-wide file is not read.
    GIT_CONFIG_NOSYSTEM: '1',
  };
}

/** Where HOME points for git without the server user's credentials: a folder no one makes. */
const NO_HOME = '/nonexistent';
/**
 * ssh with none of the server user's keys: no config file (its `Host … IdentityFile` entries), no agent,
 * no default identity files (one that cannot load stands in for them). Known hosts are still read, so a
 * host key must be known, as with the operator's own sources.
 */
const SSH_WITHOUT_KEYS =
  'ssh -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityFile=/dev/null -o IdentityAgent=none';

/**
 * The environment for a source an organization's admin set (git-sources.ts `usesServerCredentials`):
 * git reads no global config (its credential helpers and `url.*.insteadOf` rewrites), curl finds no
 * `~/.netrc` (it looks in HOME), and ssh uses no key or agent of the server user's. Only credentials in
 * the source's own URL authenticate. Proxies and CA bundles stay: they are the network's, not a login.
 */
export function withoutServerCredentials(env: Record<string, string>): Record<string, string> {
  const { SSH_AUTH_SOCK: _agent, GIT_SSH: _ssh, GIT_SSH_COMMAND: _sshCommand, HOME: _home, ...rest } = env;
  return {
    ...rest,
    HOME: NO_HOME,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_SSH_COMMAND: SSH_WITHOUT_KEYS,
    // curl's Negotiate (SPNEGO) would otherwise log in with the server user's Kerberos ticket or keytab.
    KRB5CCNAME: `FILE:${NO_HOME}/krb5cc`,
    KRB5_CLIENT_KTNAME: `${NO_HOME}/client.keytab`,
  };
}

/**
 * Where a command that names no folder of its own (clone, ls-remote) runs. Not the server's working
 * folder: git reads the config of the repository it runs in (`ls-remote` does), and a server started
 * from a checkout would lend its `http.extraHeader` (a CI token), `url.*.insteadOf` rewrites or credential
 * helper to every remote, an organization's included (withoutServerCredentials). All paths git is given
 * are absolute.
 */
const OUTSIDE_ANY_REPOSITORY = '/';

/**
 * Starts git under a data-segment limit, which its helpers (git-remote-http, index-pack) inherit. Node
 * cannot set a limit itself, so a fixed `sh` line sets it and execs git: git's arguments are passed as
 * the line's parameters, never parsed by the shell. A limit above the current hard one is left unset.
 */
const START_WITH_MEMORY_LIMIT = 'ulimit -d "$1" 2>/dev/null; shift; exec git "$@"';
/** sh's exit status when it finds no `git` to exec. */
const COMMAND_NOT_FOUND = 127;

/** Runs git (its arguments never parsed by a shell), returning its standard output; failures become GitCommandError with git's words, redacted. */
export async function runGit(kind: GitUrlKind, args: string[], options: GitRunOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? GIT_QUICK_TIMEOUT_MS;
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) abort.abort();
  let tooLarge = false;
  const watch = options.watchFolder;
  const maxBytes = options.maxBytes ?? MAX_CLONE_BYTES;
  const watcher =
    watch === undefined
      ? undefined
      : setInterval(() => {
          void folderExceeds(watch, maxBytes).then((over) => {
            if (over && !abort.signal.aborted) {
              tooLarge = true;
              abort.abort();
            }
          });
        }, SIZE_CHECK_INTERVAL_MS);
  watcher?.unref();
  try {
    return await new Promise<string>((resolve, reject) => {
      // Its own process group (detached), so that a git that is stopped stops with the helpers it
      // started (git-remote-https, index-pack, ssh): killing git alone, as execFile does, left them
      // downloading.
      const memoryKb = String(Math.floor((options.maxMemoryBytes ?? MAX_GIT_MEMORY_BYTES) / 1024));
      const child = spawn(
        '/bin/sh',
        ['-c', START_WITH_MEMORY_LIMIT, 'sh', memoryKb, ...safetyConfig(kind), ...args],
        {
          cwd: options.cwd ?? OUTSIDE_ANY_REPOSITORY,
          env: gitEnvironment(options.env),
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const output = { stdout: '', stderr: '', bytes: 0 };
      let stopped: GitStop | undefined;
      const stopAll = (why: GitStop): void => {
        stopped ??= why;
        killGroup(child.pid);
      };
      const timer = setTimeout(() => stopAll('timeout'), timeoutMs);
      const onAbort = (): void => stopAll('abort');
      abort.signal.addEventListener('abort', onAbort, { once: true });
      if (abort.signal.aborted) onAbort();
      const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
        output.bytes += chunk.length;
        if (output.bytes > MAX_GIT_OUTPUT_BYTES) stopAll('output');
        else output[stream] += chunk.toString('utf8');
      };
      child.stdout?.on('data', collect('stdout'));
      child.stderr?.on('data', collect('stderr'));
      const done = (): void => {
        clearTimeout(timer);
        abort.signal.removeEventListener('abort', onAbort);
      };
      const fail = (why: GitStop | 'exit' | NodeJS.ErrnoException): void => {
        done();
        // The server's own folders (the clone under the data folder) are no business of the caller.
        const told = serverFoldersHidden(output.stderr, [options.cwd, options.watchFolder]);
        reject(
          gitFailure(args[0] ?? 'git', why, told, {
            timeoutMs,
            tooLarge,
            maxBytes,
            maxMemoryBytes: options.maxMemoryBytes ?? MAX_GIT_MEMORY_BYTES,
          }),
        );
      };
      child.once('error', fail);
      child.once('close', (code) => {
        if (stopped !== undefined) return fail(stopped);
        if (code === COMMAND_NOT_FOUND && /\bgit\b.*not found/.test(output.stderr))
          return fail(Object.assign(new Error('git not found'), { code: 'ENOENT' }));
        if (code !== 0) return fail('exit');
        done();
        resolve(output.stdout);
      });
    });
  } finally {
    if (watcher) clearInterval(watcher);
    options.signal?.removeEventListener('abort', stop);
  }
}

/** Why Docent stopped a git command: its time ran out, it was aborted (too large, a shutdown), or it wrote too much. */
type GitStop = 'timeout' | 'abort' | 'output';

/** Kills a process group (SIGKILL); one already gone is no error. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: every process of the group has ended.
  }
}

function gitFailure(
  command: string,
  why: GitStop | 'exit' | NodeJS.ErrnoException,
  stderr: string,
  context: { timeoutMs: number; tooLarge: boolean; maxBytes: number; maxMemoryBytes: number },
): GitCommandError {
  if (typeof why === 'object' && why.code === 'ENOENT')
    return new GitCommandError('git is not installed on the server (no "git" on PATH)');
  if (context.tooLarge)
    return new GitCommandError(
      `git ${command} stopped: the repository is larger than ${Math.round(context.maxBytes / 1024 / 1024)} MB`,
    );
  if (why === 'abort') return new GitCommandError(`git ${command} was stopped`);
  if (why === 'timeout')
    return new GitCommandError(`git ${command} took longer than ${Math.round(context.timeoutMs / 1000)} s`);
  if (why === 'output')
    return new GitCommandError(
      `git ${command} stopped: it wrote more than ${MAX_GIT_OUTPUT_BYTES / 1024 / 1024} MB of output`,
    );
  if (why === 'exit' && /\bOut of memory\b/i.test(stderr))
    return new GitCommandError(
      `git ${command} stopped: it needed more than ${Math.round(context.maxMemoryBytes / 1024 / 1024)} MB of memory (the remote sent more than a repository's refs and objects)`,
    );
  const words = redactGitUrl(stderr)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('hint:'))
    .join(' ');
  const message = words.length > MAX_GIT_MESSAGE_CHARS ? `${words.slice(0, MAX_GIT_MESSAGE_CHARS)}…` : words;
  return new GitCommandError(`git ${command} failed: ${message || 'no message'}`);
}

/** Whether the folder's files add up to more than `maxBytes` (stops counting once they do). */
export async function folderExceeds(dir: string, maxBytes: number): Promise<boolean> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) {
        total += (await fs.lstat(full).catch(() => ({ size: 0 }))).size;
        if (total > maxBytes) return true;
      }
    }
  }
  return false;
}

/**
 * git's words without the server's folders: progress lines ("Cloning into '/data/…'…") go, and any
 * folder of the command (its working folder, the clone it writes) is named "the clone folder".
 */
export function serverFoldersHidden(stderr: string, folders: readonly (string | undefined)[]): string {
  let text = stderr
    .split('\n')
    .filter((line) => !/^\s*Cloning into\b/.test(line))
    .join('\n');
  const known = folders
    .filter((f): f is string => f !== undefined && f.length > 1)
    .sort((a, b) => b.length - a.length);
  for (const folder of known) text = text.split(folder).join('the clone folder');
  return text;
}
