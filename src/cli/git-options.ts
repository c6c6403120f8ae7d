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
  try {
    const remote = parseGitUrl(options.git, { allowLocal: true });
    return {
      url: remote.url,
      branch: options.branch === undefined ? null : parseBranch(options.branch),
      subdir: options.subdir === undefined ? '' : parseSubdir(options.subdir),
      pollMinutes: options.poll === undefined ? null : parsePoll(options.poll),
      setBy: 'cli',
    };
  } catch (error) {
    if (error instanceof GitSourceError) throw new CliError(`--git: ${error.message}`);
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
