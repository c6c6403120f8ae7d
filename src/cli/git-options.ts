import { loadConfig, resolveDataDir } from '../config.ts';
import type { GitWorkspace } from '../sources/git-checkout.ts';
import { type GitSourceInput, MAX_POLL_MINUTES, MIN_POLL_MINUTES } from '../sources/git-sources.ts';
import { GitSourceError, parseBranch, parseGitUrl, parseSubdir } from '../sources/git-url.ts';
import { CliError, databaseUrlFrom, type GlobalOptions } from './context.ts';

/** The git options `init` and `sites set-git` share. */
export interface GitCliOptions {
  git: string;
  branch?: string;
  subdir?: string;
  poll?: string;
}

/**
 * A git source as the operator gave it. The CLI is run by the operator, so a repository on this
 * machine (a path or file://) is allowed here, unlike over the admin API.
 */
export function parseGitCliOptions(options: GitCliOptions): GitSourceInput {
  return {
    url: named('--git', () => parseGitUrl(options.git, { allowLocal: true }).url),
    branch:
      options.branch === undefined ? null : named('--branch', () => parseBranch(options.branch as string)),
    subdir:
      options.subdir === undefined ? '' : named('--subdir', () => parseSubdir(options.subdir as string)),
    pollMinutes: options.poll === undefined ? null : parsePoll(options.poll),
    setBy: 'cli',
  };
}

/** The option's own name before its error: a bad branch read "--git: branch … is not valid". */
function named<T>(option: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof GitSourceError) throw new CliError(`${option}: ${error.message}`);
    throw error;
  }
}

function parsePoll(value: string): number {
  const minutes = Number(value);
  if (!Number.isInteger(minutes) || minutes < MIN_POLL_MINUTES || minutes > MAX_POLL_MINUTES)
    throw new CliError(
      `--poll: must be a whole number of minutes from ${MIN_POLL_MINUTES} to ${MAX_POLL_MINUTES}`,
    );
  return minutes;
}

/** Where this CLI run keeps clones: DOCENT_DATA_DIR, else next to the database it was pointed at. */
export function cliGitWorkspace(globals: GlobalOptions): GitWorkspace {
  const config = loadConfig();
  return {
    dataDir: resolveDataDir(config.git.dataDir, databaseUrlFrom(globals)),
    env: config.git.env,
    // A tenant's repository under the root is as untrusted when the operator's CLI fetches it.
    localRoot: config.docsRoot,
    serverCredentialsForApiSources: config.git.serverCredentialsForApiSources,
  };
}
