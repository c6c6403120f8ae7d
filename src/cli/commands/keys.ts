import type { Command } from 'commander';
import type { Storage } from '../../storage/database.ts';
import {
  createApiKey,
  KeyCreationLimitError,
  keyNameSchema,
  keySummary,
  listApiKeys,
  revokeApiKey,
} from '../../tenancy/api-keys.ts';
import { getOrganization } from '../../tenancy/organizations.ts';
import { getSite, getSiteByDomain, listSites } from '../../tenancy/sites.ts';
import { CliError, type GlobalOptions, printJson, withStorage } from '../context.ts';

/** The organization a command acts on: named by `--org <id>` or through one of its sites. */
export async function resolveOrganization(
  storage: Storage,
  options: { org?: string; site?: string },
): Promise<{ organizationId: string; siteId?: string; domain?: string }> {
  if (options.site !== undefined) {
    const site = await getSiteByDomain(storage, options.site);
    if (!site) throw new CliError(`No site "${options.site}"`);
    if (options.org !== undefined && options.org !== site.organization_id)
      throw new CliError(`Site "${options.site}" does not belong to organization ${options.org}`);
    return { organizationId: site.organization_id, siteId: site.id, domain: site.domain };
  }
  if (options.org !== undefined) {
    if (!(await getOrganization(storage, options.org)))
      throw new CliError(`No organization "${options.org}"`);
    return { organizationId: options.org };
  }
  throw new CliError('Name the organization with --org <id> or one of its sites with --site <domain>');
}

function parseExpiry(value: string | undefined): string | null {
  if (value === undefined) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new CliError('--expires-at must be a date, e.g. 2026-01-31T00:00:00Z');
  if (date.getTime() <= Date.now()) throw new CliError('--expires-at must be in the future');
  return date.toISOString();
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description(
      'create an assistant key for a site, or with --admin an organization admin key (shown only now)',
    )
    .option('--site <domain>', 'site of the assistant key (or, with --admin, a site of the organization)')
    .option('--admin', 'create an admin key (svc_…) for the admin API instead')
    .option('--org <id>', 'organization of an admin key')
    .option('--name <name>', 'a label for the key')
    .option('--expires-at <date>', 'when the key stops working (ISO 8601)')
    .action(
      async (
        options: { site?: string; admin?: boolean; org?: string; name?: string; expiresAt?: string },
        command: Command,
      ) => {
        const globals = command.optsWithGlobals<GlobalOptions>();
        const expiresAt = parseExpiry(options.expiresAt);
        const name = options.name === undefined ? undefined : keyNameSchema.safeParse(options.name);
        if (name?.success === false)
          throw new CliError(`--name ${name.error.issues[0]?.message ?? 'is not a valid key name'}`);
        if (!options.admin && options.site === undefined) throw new CliError('--site <domain> is required');
        await withStorage(globals, async (storage) => {
          const owner = await resolveOrganization(storage, options);
          try {
            const { key, record } = await createApiKey(storage, {
              organizationId: owner.organizationId,
              siteId: options.admin ? null : (owner.siteId ?? null),
              kind: options.admin ? 'admin' : 'assistant',
              ...(name?.success ? { name: name.data } : {}),
              expiresAt,
            });
            if (globals.json) {
              printJson({
                id: record.id,
                kind: record.kind,
                organization: owner.organizationId,
                site: options.admin ? null : owner.domain,
                key,
              });
            } else if (options.admin) {
              process.stdout.write(
                `Admin key for organization ${owner.organizationId} (shown once): ${key}\n`,
              );
            } else {
              process.stdout.write(`Assistant key for "${owner.domain}" (shown once): ${key}\n`);
            }
          } catch (error) {
            if (error instanceof KeyCreationLimitError) throw new CliError(error.message);
            throw error;
          }
        });
      },
    );

  keys
    .command('list')
    .description("list an organization's keys (prefix and last four characters only)")
    .option('--org <id>', 'organization')
    .option('--site <domain>', "this site's keys, and its organization's admin keys")
    .action(async (options: { org?: string; site?: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        const owner = await resolveOrganization(storage, options);
        // With --site, the organization's admin keys too: they work on the site, and `keys create --admin
        // --site` makes them, so that is where one looks for them to rotate one.
        const rows = (await listApiKeys(storage, owner.organizationId)).filter(
          (row) => owner.siteId === undefined || row.site_id === owner.siteId || row.site_id === null,
        );
        const domains = new Map(
          (await listSites(storage, owner.organizationId)).map((s) => [s.id, s.domain]),
        );
        const summaries = rows.map((row) => {
          const { siteId, ...summary } = keySummary(row);
          return { ...summary, site: siteId === null ? null : (domains.get(siteId) ?? null) };
        });
        if (globals.json) {
          printJson({ organization: owner.organizationId, keys: summaries });
          return;
        }
        const now = new Date().toISOString();
        for (const k of summaries) {
          const state = k.revokedAt
            ? `revoked ${k.revokedAt}`
            : k.expiresAt !== null && k.expiresAt <= now
              ? 'expired'
              : 'active';
          process.stdout.write(
            `${k.id}  ${k.kind.padEnd(9)}  ${k.display}  ${k.site ?? '(organization)'}  ${k.name ?? ''}  ${state}  ` +
              `created ${k.createdAt}  expires ${k.expiresAt ?? 'never'}  last used ${k.lastUsedAt ?? 'never'}\n`,
          );
        }
        if (summaries.length === 0) process.stdout.write('No keys.\n');
      });
    });

  keys
    .command('revoke')
    .description('revoke a key by id (idempotent)')
    .argument('<id>', 'key id, as keys list shows it')
    .action(async (id: string, _options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        const row = await storage.db
          .selectFrom('api_keys')
          .select('organization_id')
          .where('id', '=', id)
          .executeTakeFirst();
        const key = row ? await revokeApiKey(storage, row.organization_id, id) : undefined;
        if (!key) throw new CliError(`No key "${id}"`);
        if (globals.json) {
          // The site as `keys list` and `keys create` name it: its domain.
          const { siteId, ...summary } = keySummary(key);
          const site = siteId === null ? undefined : await getSite(storage, siteId);
          printJson({ ...summary, site: site?.domain ?? null });
        } else
          process.stdout.write(`Revoked ${key.prefix}…${key.last_four} (${key.id}) at ${key.revoked_at}\n`);
      });
    });
}
