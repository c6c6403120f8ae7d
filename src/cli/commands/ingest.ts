import type { Command } from 'commander';
import { destination, pino } from 'pino';
import { EmptyDocsFolderError, type IngestionResult, ingestSite } from '../../ingest/ingest-site.ts';
import { recoverInterruptedIngestions } from '../../ingest/recover-interrupted-ingestions.ts';
import { startInstanceLifecycle } from '../../recovery/instance-lifecycle.ts';
import { GitCommandError } from '../../sources/git.ts';
import { ingestGitSite } from '../../sources/git-ingestion.ts';
import { getGitSource } from '../../sources/git-sources.ts';
import { GitSourceError } from '../../sources/git-url.ts';
import { getSiteByDomain, updateSite } from '../../tenancy/sites.ts';
import {
  CliError,
  docsDirectory,
  embeddingModelsFromEnv,
  type GlobalOptions,
  printJson,
  printWarnings,
  withStorage,
} from '../context.ts';
import { cliGitWorkspace } from '../git-options.ts';
import { settleIfInterrupted } from '../interruption.ts';
import { progressBar } from '../progress.ts';

interface IngestCliOptions {
  site: string;
  allowEmpty?: boolean;
}

export function registerIngest(program: Command): void {
  program
    .command('ingest')
    .description(
      'ingest (or re-ingest, incrementally) a docs folder into a site; without a folder, fetch and ingest the site’s git repository (or its last folder)',
    )
    .argument('[dir]', 'docs folder: a Mintlify docs.json/mint.json site or plain Markdown')
    .requiredOption('--site <domain>', 'domain identifier of the site')
    .option('--allow-empty', 'let a folder with no pages remove every page of the site')
    .action(async (dir: string | undefined, options: IngestCliOptions, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const docsDir = dir === undefined ? undefined : docsDirectory(dir);
      await withStorage(globals, async (storage) => {
        const site = await getSiteByDomain(storage, options.site);
        if (!site)
          throw new CliError(`No site "${options.site}"; create it with "init --site ${options.site}"`);
        const git = await getGitSource(storage, site.id);
        if (git && docsDir !== undefined)
          throw new CliError(
            `Site "${site.domain}" reads a git repository: run "ingest --site ${site.domain}" to fetch it, or "sites unset-git ${site.domain}" first`,
          );
        const folder = docsDir ?? site.docs_dir ?? undefined;
        if (!git && folder === undefined)
          throw new CliError(`Site "${site.domain}" has no docs folder or git repository yet: name a folder`);
        // Registered like a server, so a run killed midway leaves a job a live process marks failed.
        const lifecycle = await startInstanceLifecycle(storage, pino({ level: 'warn' }, destination(2)));
        const progress = progressBar('Ingesting', !globals.json);
        const started = performance.now();
        const ingestOptions = {
          instanceId: lifecycle.instance.id,
          embeddings: embeddingModelsFromEnv()?.ingestion ?? null,
          allowEmpty: options.allowEmpty === true,
          ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
        };
        // Ctrl-C marks the job failed now, as the next process on the database would once this one is
        // gone: until then it showed `in_progress`, to the console and the admin API too.
        const settle = async () => {
          progress.stop();
          await lifecycle.stop();
          await recoverInterruptedIngestions(storage, [lifecycle.instance.id]);
        };
        const run = (): Promise<IngestionResult & { commit?: string }> =>
          git
            ? ingestGitSite(storage, cliGitWorkspace(globals), site.id, ingestOptions)
            : ingestSite(storage, site.id, folder as string, ingestOptions);
        const result = await settleIfInterrupted(
          settle,
          'the ingestion was marked failed; the site still serves its last completed ingestion',
          run,
        )
          .catch((error: unknown) => {
            // The job row says so too; the operator gets git's words without a stack.
            if (
              error instanceof GitCommandError ||
              error instanceof GitSourceError ||
              error instanceof EmptyDocsFolderError
            )
              throw new CliError(error.message);
            throw error;
          })
          .finally(async () => {
            progress.stop();
            await lifecycle.stop();
          });
        if (!git) await updateSite(storage, site.id, { docs_dir: folder as string });
        const commit = result.commit ?? null;
        const seconds = (performance.now() - started) / 1000;
        if (globals.json) {
          printJson({
            jobId: result.job.id,
            status: 'success',
            ...(commit ? { commit } : {}),
            counts: result.counts,
            warnings: result.warnings,
            seconds,
          });
          return;
        }
        const c = result.counts;
        process.stdout.write(
          `Ingested ${c.pages} page${c.pages === 1 ? '' : 's'} into "${site.domain}"${commit ? ` at commit ${commit.slice(0, 12)}` : ''} ` +
            `in ${seconds.toFixed(2)} s: ${c.added} added, ` +
            `${c.updated} updated, ${c.removed} removed, ${c.unchanged} unchanged, ${c.skipped} skipped.\n`,
        );
        printWarnings(result.warnings);
      });
    });
}
