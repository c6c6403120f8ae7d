import type { Command } from 'commander';
import { searchDocs } from '../../agents/search-docs.ts';
import { loadConfig } from '../../config.ts';
import { SiteSearch } from '../../search/site-search.ts';
import { getSiteByDomain } from '../../tenancy/sites.ts';
import { CliError, embeddingModelsFromEnv, type GlobalOptions, printJson, withStorage } from '../context.ts';

export const MAX_CLI_SEARCH_LIMIT = 100;

export function registerSearch(program: Command): void {
  program
    .command('search')
    .description("search a site's docs")
    .argument('<query...>', 'what to search for (quoted or not: the words are joined)')
    .requiredOption('--site <domain>', 'domain identifier of the site')
    .option('--version <version>', 'only pages of this version (and unversioned pages)')
    .option('--language <language>', 'only pages of this language (and pages without one)')
    .option('--limit <n>', 'number of results', '5')
    .action(
      async (
        words: string[],
        options: { site: string; version?: string; language?: string; limit: string },
        command: Command,
      ) => {
        const globals = command.optsWithGlobals<GlobalOptions>();
        // `search --site acme rotate api keys` unquoted was refused ("too many arguments").
        const query = words.join(' ');
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CLI_SEARCH_LIMIT) {
          throw new CliError(`--limit must be an integer from 1 to ${MAX_CLI_SEARCH_LIMIT}`);
        }
        await withStorage(globals, async (storage) => {
          const site = await getSiteByDomain(storage, options.site);
          if (!site) throw new CliError(`No site "${options.site}"`);
          const search = new SiteSearch(storage, { embeddings: embeddingModelsFromEnv()?.query ?? null });
          // The search API's use case and shape (`POST /v1/search/{domain}`), links to this server's page
          // view (DOCENT_PUBLIC_URL, else the local server) unless the site has a base URL of its own.
          const config = loadConfig();
          const docentUrl = config.publicUrl ?? `http://localhost:${config.port}`;
          const hits = await searchDocs(
            search,
            site,
            { query, pageSize: limit, filter: { version: options.version, language: options.language } },
            docentUrl,
          );
          if (globals.json) {
            printJson(hits);
            return;
          }
          if (hits.length === 0) process.stdout.write('No results.\n');
          hits.forEach((hit, i) => {
            const { breadcrumbs, url, score, version, language } = hit.metadata;
            const labels = [version, language].filter(Boolean).join(', ');
            const snippet = hit.content.replace(/\s+/g, ' ').slice(0, 160);
            process.stdout.write(
              `${i + 1}. ${breadcrumbs.join(' › ')}${labels ? ` [${labels}]` : ''}  (${score.toFixed(2)})\n   ${url}\n   ${snippet}\n`,
            );
          });
        });
      },
    );
}
