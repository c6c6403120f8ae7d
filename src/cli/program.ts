import { Command } from 'commander';
import { registerEval } from './commands/eval.ts';
import { registerIngest } from './commands/ingest.ts';
import { registerInit } from './commands/init.ts';
import { registerKeys } from './commands/keys.ts';
import { registerSearch } from './commands/search.ts';
import { registerServe } from './commands/serve.ts';

export function createProgram(): Command {
  const program = new Command('docent')
    .description('Docent: a self-hostable assistant for your documentation')
    .option(
      '--database-url <url>',
      'sqlite:<path> or postgres://… (default DATABASE_URL or sqlite:.docent/docent.db)',
    )
    .option('--json', 'machine-readable output')
    .showHelpAfterError();
  registerServe(program);
  registerInit(program);
  registerIngest(program);
  registerSearch(program);
  registerEval(program);
  registerKeys(program);
  return program;
}
