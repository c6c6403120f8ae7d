import { CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { DomainError } from '../errors/domain-error.ts';
import { DocsFolderLimitError } from '../ingest/ingest-limits.ts';
import { DocsConfigError } from '../ingest/navigation.ts';
import { EvalSetError } from '../search/eval-set.ts';
import { DatabaseFromNewerVersionError, DatabaseUrlError } from '../storage/database.ts';
import { DocsDirError } from '../tenancy/docs-dir.ts';
import { CliError } from './context.ts';
import { createProgram } from './program.ts';
import { escapeControlCharacters, guardTerminalOutput } from './terminal-output.ts';

// Not stderr: the progress bar draws there with escape sequences of its own; what reaches stderr from
// docs content (an error naming a file) is escaped where it is written, below.
guardTerminalOutput(process.stdout);
const program = createProgram().exitOverride();

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  // A domain error says what went wrong in the caller's terms (a version the docs do not have, say);
  // an eval set's error names the file and line; a refused folder or database says why. A stack trace
  // is for the errors nobody expected.
  if (
    error instanceof CliError ||
    error instanceof ConfigError ||
    error instanceof DatabaseUrlError ||
    error instanceof DatabaseFromNewerVersionError ||
    error instanceof DocsFolderLimitError ||
    error instanceof DocsConfigError ||
    error instanceof DocsDirError ||
    error instanceof DomainError ||
    error instanceof EvalSetError
  ) {
    process.stderr.write(`docent: ${escapeControlCharacters(error.message)}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `docent: ${escapeControlCharacters(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`,
  );
  process.exit(1);
});
