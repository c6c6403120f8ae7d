import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { createApiKey } from '../../tenancy/api-keys.ts';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { baseUrlSchema, DomainTakenError, domainSchema, getSiteByDomain } from '../../tenancy/sites.ts';
import { CliError, type GlobalOptions, printJson, withStorage } from '../context.ts';
import { progressBar } from '../progress.ts';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'create an organization and a site, ingest its docs, and create an assistant key and an admin key',
    )
    .requiredOption('--site <domain>', 'domain identifier of the new site')
    .option('--docs <dir>', 'docs folder to ingest (default DOCENT_DOCS_DIR or ./docs)')
    .option('--name <name>', 'display name of the site')
    .option('--base-url <url>', 'public URL of the docs, used for deep links')
    .action(
      async (options: { site: string; docs?: string; name?: string; baseUrl?: string }, command: Command) => {
        const globals = command.optsWithGlobals<GlobalOptions>();
        const domain = domainSchema.safeParse(options.site);
        if (!domain.success)
          throw new CliError(`--site: ${domain.error.issues[0]?.message ?? 'invalid domain'}`);
        const baseUrl = options.baseUrl === undefined ? undefined : baseUrlSchema.safeParse(options.baseUrl);
        if (baseUrl && !baseUrl.success)
          throw new CliError(`--base-url: ${baseUrl.error.issues[0]?.message ?? 'invalid URL'}`);
        const docsDir = path.resolve(options.docs ?? loadConfig().docsDir);
        await withStorage(globals, async (storage) => {
          if (await getSiteByDomain(storage, domain.data)) {
            throw new CliError(
              `Site "${domain.data}" already exists; use "ingest <dir> --site ${domain.data}" to update it`,
            );
          }
          const progress = progressBar('Ingesting', !globals.json);
          try {
            const result = await bootstrapSite(storage, {
              domain: domain.data,
              docsDir,
              ...(options.name ? { siteName: options.name } : {}),
              baseUrl: baseUrl?.data ?? null,
              ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
            });
            progress.stop();
            // The organization's first admin key: the admin API needs one, and only the CLI can make it.
            const admin = await createApiKey(storage, {
              organizationId: result.organization.id,
              siteId: null,
              kind: 'admin',
              name: 'init',
            });
            if (globals.json) {
              printJson({
                organization: result.organization.id,
                site: result.site.domain,
                assistantKey: result.assistantKey,
                adminKey: admin.key,
              });
              return;
            }
            process.stdout.write(
              `Site "${result.site.domain}" created: ${result.ingestion.counts.pages} pages, ` +
                `${result.ingestion.warnings.length} warnings.\nAssistant key (shown once, public): ${result.assistantKey}\n` +
                `Admin key for organization ${result.organization.id} (shown once, keep it secret): ${admin.key}\n`,
            );
          } catch (error) {
            progress.stop();
            if (error instanceof DomainTakenError) throw new CliError(error.message);
            throw error;
          }
        });
      },
    );
}
