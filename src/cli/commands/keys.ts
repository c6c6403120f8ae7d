import type { Command } from 'commander';
import { createApiKey } from '../../tenancy/api-keys.ts';
import { getSiteByDomain } from '../../tenancy/sites.ts';
import { CliError, type GlobalOptions, printJson, withStorage } from '../context.ts';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('create an assistant key for a site (the full key is shown only now)')
    .requiredOption('--site <domain>', 'domain identifier of the site')
    .option('--name <name>', 'a label for the key')
    .action(async (options: { site: string; name?: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        const site = await getSiteByDomain(storage, options.site);
        if (!site) throw new CliError(`No site "${options.site}"`);
        const { key, record } = await createApiKey(storage, {
          organizationId: site.organization_id,
          siteId: site.id,
          kind: 'assistant',
          ...(options.name ? { name: options.name } : {}),
        });
        if (globals.json) printJson({ id: record.id, site: site.domain, key });
        else process.stdout.write(`Assistant key for "${site.domain}" (shown once): ${key}\n`);
      });
    });
}
