import type { Command } from 'commander';
import { destination, pino } from 'pino';
import { loadConfig } from '../../config.ts';
import { EmptyDocsFolderError } from '../../ingest/ingest-site.ts';
import { startInstanceLifecycle } from '../../recovery/instance-lifecycle.ts';
import { GitCommandError } from '../../sources/git.ts';
import { getGitSource } from '../../sources/git-sources.ts';
import { GitSourceError } from '../../sources/git-url.ts';
import { createApiKey, listApiKeys } from '../../tenancy/api-keys.ts';
import {
  type BootstrappedSite,
  bootstrapSite,
  removeBootstrappedSite,
} from '../../tenancy/bootstrap-site.ts';
import {
  baseUrlSchema,
  DomainTakenError,
  domainSchema,
  getSiteByDomain,
  siteNameSchema,
} from '../../tenancy/sites.ts';
import {
  CliError,
  docsDirectory,
  type GlobalOptions,
  printJson,
  printWarnings,
  withStorage,
} from '../context.ts';
import { cliGitWorkspace, parseGitCliOptions } from '../git-options.ts';
import { settleIfInterrupted } from '../interruption.ts';
import { progressBar } from '../progress.ts';

interface InitOptions {
  site: string;
  docs?: string;
  git?: string;
  branch?: string;
  subdir?: string;
  poll?: string;
  name?: string;
  baseUrl?: string;
  allowEmpty?: boolean;
}

/** The docs of the new site: a folder, or a git repository (`--git`, with its own options). */
function sourceOf(options: InitOptions, globals: GlobalOptions) {
  if (options.git === undefined) {
    for (const flag of ['branch', 'subdir', 'poll'] as const)
      if (options[flag] !== undefined) throw new CliError(`--${flag} needs --git`);
    // Checked before anything is created, as `ingest` checks it.
    return { docsDir: docsDirectory(options.docs ?? loadConfig().docsDir) };
  }
  if (options.docs !== undefined) throw new CliError('--docs and --git cannot be used together');
  return {
    git: {
      source: parseGitCliOptions({ ...options, git: options.git }),
      workspace: cliGitWorkspace(globals),
    },
  };
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'create an organization and a site, ingest its docs, and create an assistant key and an admin key',
    )
    .requiredOption('--site <domain>', 'domain identifier of the new site')
    .option('--docs <dir>', 'docs folder to ingest (default DOCENT_DOCS_DIR or ./docs)')
    .option(
      '--git <url>',
      'git repository to clone and ingest instead of a folder (https, ssh, or a local path)',
    )
    .option('--branch <name>', "with --git: branch to follow (default: the remote's default branch)")
    .option('--subdir <dir>', 'with --git: folder of the repository that holds the docs')
    .option('--poll <minutes>', 'with --git: check the repository for new commits every this many minutes')
    .option('--name <name>', 'display name of the site')
    .option('--base-url <url>', 'public URL of the docs, used for deep links')
    .option('--allow-empty', 'create the site even when its docs have no pages')
    .action(async (options: InitOptions, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const domain = domainSchema.safeParse(options.site);
      if (!domain.success)
        throw new CliError(`--site: ${domain.error.issues[0]?.message ?? 'invalid domain'}`);
      const baseUrl = options.baseUrl === undefined ? undefined : baseUrlSchema.safeParse(options.baseUrl);
      if (baseUrl && !baseUrl.success)
        throw new CliError(`--base-url: ${baseUrl.error.issues[0]?.message ?? 'invalid URL'}`);
      const name = options.name === undefined ? undefined : siteNameSchema.safeParse(options.name);
      if (name && !name.success)
        throw new CliError(`--name: ${name.error.issues[0]?.message ?? 'invalid name'}`);
      const source = sourceOf(options, globals);
      await withStorage(
        globals,
        async (storage) => {
          const existing = await getSiteByDomain(storage, domain.data);
          if (existing) {
            // A site read from git is updated without a folder: "ingest <dir>" would move it off git.
            const update = (await getGitSource(storage, existing.id))
              ? `ingest --site ${domain.data}`
              : `ingest <dir> --site ${domain.data}`;
            // An init killed outright (SIGKILL, a power cut) leaves its site without keys: say how to go on.
            const keys = await listApiKeys(storage, existing.organization_id, { siteId: existing.id });
            if (keys.length === 0)
              throw new CliError(
                `Site "${domain.data}" already exists but has no keys (an init stopped before it printed them?): ` +
                  `make one with "keys create --site ${domain.data}", or delete the site with ` +
                  `"sites delete ${domain.data} --yes" and run init again`,
              );
            throw new CliError(`Site "${domain.data}" already exists; use "${update}" to update it`);
          }
          const progress = progressBar('Ingesting', !globals.json);
          // Registered like a server (as `ingest` is), so a run killed midway leaves a job a live
          // process marks failed.
          const lifecycle = await startInstanceLifecycle(storage, pino({ level: 'warn' }, destination(2)));
          // Ctrl-C before the keys are printed deletes what was made, as a failure does: left behind,
          // the keyless site would make the same `init` refuse its domain as taken.
          let created: BootstrappedSite | undefined;
          const undo = async () => {
            progress.stop();
            await lifecycle.stop();
            if (created) await removeBootstrappedSite(storage, created, source.git?.workspace);
          };
          try {
            const { result, admin } = await settleIfInterrupted(undo, 'nothing was created', async () => {
              const result = await bootstrapSite(storage, {
                domain: domain.data,
                ...source,
                ...(name?.data ? { siteName: name.data } : {}),
                baseUrl: baseUrl?.data ?? null,
                ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
                refuseEmpty: options.allowEmpty !== true,
                instanceId: lifecycle.instance.id,
                onCreated: (site) => {
                  created = site;
                },
              }).finally(() => lifecycle.stop());
              progress.stop();
              // The organization's first admin key: the admin API needs one, and only the CLI can make it.
              const admin = await createApiKey(storage, {
                organizationId: result.organization.id,
                siteId: null,
                kind: 'admin',
                name: 'init',
              });
              return { result, admin };
            });
            if (globals.json) {
              printJson({
                organization: result.organization.id,
                site: result.site.domain,
                assistantKey: result.assistantKey,
                adminKey: admin.key,
                jobId: result.ingestion.job.id,
                counts: result.ingestion.counts,
                warnings: result.ingestion.warnings,
                ...(result.git
                  ? {
                      commit: result.git.commit,
                      webhookSecret: result.git.hookSecret,
                      webhookPath: `/v1/hooks/sites/${result.site.domain}/git`,
                    }
                  : {}),
              });
              return;
            }
            process.stdout.write(
              `Site "${result.site.domain}" created: ${counted(result.ingestion.counts.pages, 'page')}, ` +
                `${counted(result.ingestion.warnings.length, 'warning')}.\nAssistant key (shown once, public): ${result.assistantKey}\n` +
                `Admin key for organization ${result.organization.id} (shown once, keep it secret): ${admin.key}\n`,
            );
            printWarnings(result.ingestion.warnings);
            if (result.git)
              process.stdout.write(
                `Ingested commit ${result.git.commit}.\nWebhook: POST /v1/hooks/sites/${result.site.domain}/git ` +
                  `with secret (shown once, keep it secret): ${result.git.hookSecret}\n`,
              );
          } catch (error) {
            progress.stop();
            if (error instanceof DomainTakenError) throw new CliError(error.message);
            if (error instanceof EmptyDocsFolderError)
              throw new CliError(
                `${error.message}, so nothing was created. Check ${source.git ? '--git, --branch and --subdir' : 'the folder'}, or add --allow-empty to create the site without pages`,
              );
            // A repository that cannot be cloned: nothing was created (bootstrapSite removed it).
            if (error instanceof GitCommandError || error instanceof GitSourceError)
              throw new CliError(`${error.message} (nothing was created)`);
            throw error;
          }
        },
        { create: true },
      );
    });
}

/** `1 page`, `2 pages`. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
