import { Command } from 'commander';
import { registerEval } from './commands/eval.ts';
import { registerIngest } from './commands/ingest.ts';
import { registerInit } from './commands/init.ts';
import { registerKeys } from './commands/keys.ts';
import { registerMcp } from './commands/mcp.ts';
import { registerOrgs } from './commands/orgs.ts';
import { registerSearch } from './commands/search.ts';
import { registerServe } from './commands/serve.ts';
import { registerSiteModel } from './commands/site-model.ts';
import { registerSites } from './commands/sites.ts';
import { registerUsage } from './commands/usage.ts';

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
  registerSites(program);
  registerUsage(program);
  registerOrgs(program);
  registerMcp(program);
  // Last: it adds to the `sites` command if one is registered above.
  registerSiteModel(program);
  return program;
}
