import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { destination, pino } from 'pino';
import { ingestSite } from '../../ingest/ingest-site.ts';
import { startInstanceLifecycle } from '../../recovery/instance-lifecycle.ts';
import { getSiteByDomain, updateSite } from '../../tenancy/sites.ts';
import { CliError, type GlobalOptions, printJson, withStorage } from '../context.ts';
import { progressBar } from '../progress.ts';

export function registerIngest(program: Command): void {
  program
    .command('ingest')
    .description('ingest (or re-ingest, incrementally) a docs folder into a site')
    .argument('<dir>', 'docs folder: a Mintlify docs.json/mint.json site or plain Markdown')
    .requiredOption('--site <domain>', 'domain identifier of the site')
    .action(async (dir: string, options: { site: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const docsDir = path.resolve(dir);
      if (!fs.existsSync(docsDir) || !fs.statSync(docsDir).isDirectory()) {
        throw new CliError(`${dir} is not a directory`);
      }
      await withStorage(globals, async (storage) => {
        const site = await getSiteByDomain(storage, options.site);
        if (!site)
          throw new CliError(`No site "${options.site}"; create it with "init --site ${options.site}"`);
        // Registered like a server, so a run killed midway leaves a job a live process marks failed.
        const lifecycle = await startInstanceLifecycle(storage, pino({ level: 'warn' }, destination(2)));
        const progress = progressBar('Ingesting', !globals.json);
        const started = performance.now();
        const result = await ingestSite(storage, site.id, docsDir, {
          instanceId: lifecycle.instance.id,
          ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
        }).finally(async () => {
          progress.stop();
          await lifecycle.stop();
        });
        await updateSite(storage, site.id, { docs_dir: docsDir });
        const seconds = (performance.now() - started) / 1000;
        if (globals.json) {
          printJson({
            jobId: result.job.id,
            status: 'success',
            counts: result.counts,
            warnings: result.warnings,
            seconds,
          });
          return;
        }
        const c = result.counts;
        process.stdout.write(
          `Ingested ${c.pages} pages into "${site.domain}" in ${seconds.toFixed(2)} s: ${c.added} added, ` +
            `${c.updated} updated, ${c.removed} removed, ${c.unchanged} unchanged, ${c.skipped} skipped.\n`,
        );
        for (const w of result.warnings.slice(0, 20)) {
          process.stdout.write(`  warning: ${w.file}${w.line ? `:${w.line}` : ''}: ${w.message}\n`);
        }
        if (result.warnings.length > 20)
          process.stdout.write(`  … ${result.warnings.length - 20} more warnings\n`);
      });
    });
}
