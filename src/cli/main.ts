import { CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { DomainError } from '../errors/domain-error.ts';
import { EvalSetError } from '../search/eval-set.ts';
import { DatabaseUrlError } from '../storage/database.ts';
import { CliError } from './context.ts';
import { createProgram } from './program.ts';
import { guardTerminalOutput } from './terminal-output.ts';

guardTerminalOutput(process.stdout);
guardTerminalOutput(process.stderr);
const program = createProgram().exitOverride();

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  // A domain error says what went wrong in the caller's terms (a version the docs do not have, say);
  // an eval set's error names the file and line.
  if (
    error instanceof CliError ||
    error instanceof ConfigError ||
    error instanceof DatabaseUrlError ||
    error instanceof DomainError ||
    error instanceof EvalSetError
  ) {
    process.stderr.write(`docent: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `docent: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
