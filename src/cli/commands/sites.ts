import path from 'node:path';
import type { Command } from 'commander';
import { unfinishedIngestion } from '../../ingest/jobs.ts';
import { removeClone } from '../../sources/git-checkout.ts';
import {
  deleteGitSource,
  type GitSourceRow,
  getGitSource,
  gitSourceView,
  rotateHookSecret,
  setGitSource,
} from '../../sources/git-sources.ts';
import { deleteSiteAndClone } from '../../sources/site-source.ts';
import type { Storage } from '../../storage/database.ts';
import {
  allowedOriginsSchema,
  createSite,
  DomainTakenError,
  domainSchema,
  getSiteByDomain,
  InvalidSiteError,
  listSites,
  type Site,
  siteAllowedOrigins,
  siteNameSchema,
  updateSite,
} from '../../tenancy/sites.ts';
import { CliError, type GlobalOptions, printJson, withStorage } from '../context.ts';
import { cliGitWorkspace, type GitCliOptions, parseGitCliOptions } from '../git-options.ts';
import { resolveOrganization } from './keys.ts';

function printGit(source: GitSourceRow | undefined): void {
  if (!source) return;
  const git = gitSourceView(source);
  process.stdout.write(
    `  git ${git.url}  branch ${git.branch ?? '(default)'}  subdir ${git.subdir || '/'}  poll ${
      git.pollMinutes === null ? 'off' : `every ${git.pollMinutes} min`
    }  commit ${git.commit ?? '-'}  set by ${source.set_by}\n`,
  );
}

function siteView(site: Site) {
  return {
    id: site.id,
    organization: site.organization_id,
    domain: site.domain,
    name: site.name,
    baseUrl: site.base_url,
    docsDir: site.docs_dir,
    allowedOrigins: siteAllowedOrigins(site),
    createdAt: site.created_at,
  };
}

function printSite(site: Site): void {
  const view = siteView(site);
  // Where its citations link: the base URL `init --base-url` set, else Docent's page view.
  process.stdout.write(
    `${view.domain}  ${view.name}  org ${view.organization}  docs ${view.docsDir ?? '-'}  base ${
      view.baseUrl ?? '(page view)'
    }  origins ${view.allowedOrigins.length ? view.allowedOrigins.join(' ') : '(any)'}\n`,
  );
}

function parseOrigins(origins: string[]): string[] {
  const parsed = allowedOriginsSchema.safeParse(origins);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path[0];
    // The value as typed, not its index: "origin "not-a-url": must be an origin…".
    const value = typeof at === 'number' ? origins[at] : undefined;
    throw new CliError(
      `origin ${value === undefined ? (issue?.path.join('.') ?? '') : JSON.stringify(value)}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

export function registerSites(program: Command): void {
  const sites = program.command('sites').description('manage sites');

  sites
    .command('list')
    .description('list sites (of one organization with --org)')
    .option('--org <id>', 'organization')
    .action(async (options: { org?: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        // A mistyped organization is an error, as for keys and usage, not an empty list.
        if (options.org !== undefined) await resolveOrganization(storage, { org: options.org });
        const rows = await listSites(storage, options.org);
        if (globals.json) printJson({ sites: rows.map(siteView) });
        else if (rows.length === 0) process.stdout.write('No sites.\n');
        else for (const site of rows) printSite(site);
      });
    });

  sites
    .command('create')
    .description('create a site in an existing organization (ingest it with "ingest <dir> --site")')
    .argument('<domain>', 'domain identifier of the new site')
    .requiredOption('--org <id>', 'organization')
    .option('--name <name>', 'display name')
    .option('--base-url <url>', 'public URL of the docs, for deep links')
    .option('--docs <dir>', 'docs folder to remember for re-ingestion')
    .option('--allowed-origin <origin...>', 'browser origins allowed to call the assistant (default: any)')
    .action(
      async (
        domain: string,
        options: { org: string; name?: string; baseUrl?: string; docs?: string; allowedOrigin?: string[] },
        command: Command,
      ) => {
        const globals = command.optsWithGlobals<GlobalOptions>();
        const parsed = domainSchema.safeParse(domain);
        if (!parsed.success) throw new CliError(`domain: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
        const origins = parseOrigins(options.allowedOrigin ?? []);
        const name = options.name === undefined ? undefined : siteNameSchema.safeParse(options.name);
        if (name && !name.success)
          throw new CliError(`--name: ${name.error.issues[0]?.message ?? 'invalid name'}`);
        await withStorage(globals, async (storage) => {
          const owner = await resolveOrganization(storage, { org: options.org });
          try {
            const site = await createSite(storage, {
              organizationId: owner.organizationId,
              domain: parsed.data,
              ...(name?.data ? { name: name.data } : {}),
              baseUrl: options.baseUrl ?? null,
              docsDir: options.docs ? path.resolve(options.docs) : null,
              allowedOrigins: origins,
            });
            if (globals.json) printJson(siteView(site));
            else printSite(site);
          } catch (error) {
            if (error instanceof DomainTakenError || error instanceof InvalidSiteError)
              throw new CliError(error.message);
            throw error;
          }
        });
      },
    );

  sites
    .command('show')
    .description('show one site')
    .argument('<domain>', 'domain identifier')
    .action(async (domain: string, _options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        const site = await getSiteByDomain(storage, domain);
        if (!site) throw new CliError(`No site "${domain}"`);
        const git = await getGitSource(storage, site.id);
        // setBy: whose git credentials the source may use (migration 0019 left older sources 'api').
        if (globals.json)
          printJson({ ...siteView(site), git: git ? { ...gitSourceView(git), setBy: git.set_by } : null });
        else {
          printSite(site);
          printGit(git);
        }
      });
    });

  sites
    .command('set-git')
    .description('read the site from a git repository (ingest it with "ingest --site <domain>")')
    .argument('<domain>', 'domain identifier')
    .requiredOption('--git <url>', 'repository: https://, ssh://, git@host:path, or a path on this machine')
    .option('--branch <name>', "branch to follow (default: the remote's default branch)")
    .option('--subdir <dir>', 'folder of the repository that holds the docs')
    .option('--poll <minutes>', 'check the repository for new commits every this many minutes')
    .action(async (domain: string, options: GitCliOptions, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const input = parseGitCliOptions(options);
      await withStorage(globals, async (storage) => {
        const site = await getSiteByDomain(storage, domain);
        if (!site) throw new CliError(`No site "${domain}"`);
        await refuseWhileServerIngests(storage, site.id, 'change its source');
        const { source, newSecret } = await setGitSource(storage, site.id, input);
        if (globals.json) {
          printJson({
            site: domain,
            git: gitSourceView(source),
            ...(newSecret ? { webhookSecret: newSecret } : {}),
          });
          return;
        }
        printGit(source);
        if (newSecret)
          process.stdout.write(
            `Webhook: POST /v1/hooks/sites/${domain}/git with secret (shown once, keep it secret): ${newSecret}\n`,
          );
        process.stdout.write(`Run "ingest --site ${domain}" to clone and ingest it.\n`);
      });
    });

  sites
    .command('unset-git')
    .description(
      'stop reading the site from git and delete its clone (its pages stay until the next ingestion)',
    )
    .argument('<domain>', 'domain identifier')
    .action(async (domain: string, _options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        const site = await getSiteByDomain(storage, domain);
        if (site) await refuseWhileServerIngests(storage, site.id, 'remove its git source');
        if (!site || !(await deleteGitSource(storage, site.id)))
          throw new CliError(`No git source for "${domain}"`);
        await removeClone(cliGitWorkspace(globals).dataDir, site.id);
        if (globals.json) printJson({ site: domain, git: null });
        else process.stdout.write(`Site "${domain}" no longer reads a git repository.\n`);
      });
    });

  sites
    .command('rotate-webhook-secret')
    .description("replace the secret of the site's git webhook (the old one stops working at once)")
    .argument('<domain>', 'domain identifier')
    .action(async (domain: string, _options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        const site = await getSiteByDomain(storage, domain);
        const secret = site ? await rotateHookSecret(storage, site.id) : undefined;
        if (secret === undefined) throw new CliError(`No git source for "${domain}"`);
        if (globals.json) printJson({ site: domain, webhookSecret: secret });
        else process.stdout.write(`New webhook secret (shown once, keep it secret): ${secret}\n`);
      });
    });

  sites
    .command('set-origins')
    .description('set the browser origins allowed to call the assistant; none given: any origin')
    .argument('<domain>', 'domain identifier')
    .argument('[origins...]', 'origins such as https://docs.example.com')
    .action(async (domain: string, origins: string[], _options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const allowed = parseOrigins(origins);
      await withStorage(globals, async (storage) => {
        const site = await getSiteByDomain(storage, domain);
        if (!site) throw new CliError(`No site "${domain}"`);
        await updateSite(storage, site.id, { allowed_origins: JSON.stringify(allowed) });
        const updated = { ...site, allowed_origins: JSON.stringify(allowed) };
        if (globals.json) printJson(siteView(updated));
        else printSite(updated);
      });
    });

  sites
    .command('delete')
    .description('delete a site with its pages, keys and threads')
    .argument('<domain>', 'domain identifier')
    .option('--yes', 'confirm the deletion')
    .action(async (domain: string, options: { yes?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      if (!options.yes)
        throw new CliError(`Deleting "${domain}" removes its pages, keys and threads: add --yes`);
      await withStorage(globals, async (storage) => {
        const site = await getSiteByDomain(storage, domain);
        const dataDir = cliGitWorkspace(globals).dataDir;
        const deletion = site
          ? await deleteSiteAndClone(storage, dataDir, site.organization_id, site.id)
          : 'missing';
        if (deletion === 'missing') throw new CliError(`No site "${domain}"`);
        if (deletion !== 'deleted') throw serverIngests(deletion.ingesting, 'delete it');
        if (globals.json) printJson({ deleted: domain });
        else process.stdout.write(`Deleted site "${domain}".\n`);
      });
    });
}

/** As the admin API refuses it (require-site.ts): a server's ingestion of the site reads its source. */
async function refuseWhileServerIngests(storage: Storage, siteId: string, action: string): Promise<void> {
  const jobId = await unfinishedIngestion(storage, siteId, { serversOnly: true });
  if (jobId !== undefined) throw serverIngests(jobId, action);
}

function serverIngests(jobId: string, action: string): CliError {
  return new CliError(`A server is ingesting this site (${jobId}): ${action} once it has finished`);
}
