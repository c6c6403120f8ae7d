import type { Command } from 'commander';
import {
  createOrganization,
  listOrganizations,
  type Organization,
  setOrganizationPlan,
} from '../../tenancy/organizations.ts';
import { getPlan, listPlans, type PlanInput, upsertPlan } from '../../tenancy/plans.ts';
import { labelSchema, MAX_NAME_LENGTH } from '../../tenancy/sites.ts';
import { CliError, type GlobalOptions, printJson, withStorage } from '../context.ts';

/**
 * An organization's or a plan's display name, read as sites' and keys' are: the CLI lists them one row
 * each, so a newline or a bidi override in one would forge or disguise a row.
 */
const displayNameSchema = labelSchema(MAX_NAME_LENGTH);

function displayName(value: string): string {
  const parsed = displayNameSchema.safeParse(value);
  if (!parsed.success)
    throw new CliError(`--name ${parsed.error.issues[0]?.message ?? 'is not a valid name'}`);
  return parsed.data;
}

/**
 * A plan's id, which `plans list` and `orgs list` show in every row: one line, as names are. It is looked
 * up as written, so spaces around it are refused rather than trimmed. An empty one (a shell variable
 * that was not set) would make a plan no one can name.
 */
function planId(value: string): string {
  const parsed = displayNameSchema.safeParse(value);
  if (!parsed.success) throw new CliError(`The plan id ${parsed.error.issues[0]?.message ?? 'is not valid'}`);
  if (parsed.data !== value) throw new CliError('The plan id must not start or end with spaces');
  return value;
}

/**
 * Digits only: `Number` reads an empty string (a shell variable that was not set) as 0, which set a
 * plan's monthly credits to none, and reads `1e3`, `0x10` or ` 5 ` as numbers nobody typed.
 */
function nonNegativeInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new CliError(`${flag} must be a whole number of 0 or more (got "${value}")`);
  return n;
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  const n = nonNegativeInteger(flag, value);
  if (n === 0) throw new CliError(`${flag} must be at least 1`);
  return n;
}

/** An organization as `--json` shows it: camelCase, as every other command's output, not its row. */
function organizationView(org: Organization) {
  return {
    id: org.id,
    name: org.name,
    plan: org.plan,
    createdAt: org.created_at,
    retentionDays:
      org.retention_days === null || org.retention_days === undefined ? null : Number(org.retention_days),
  };
}

export function registerOrgs(program: Command): void {
  const orgs = program.command('orgs').description('manage organizations');
  orgs
    .command('list')
    .description('list organizations')
    .action(async (_options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        const rows = await listOrganizations(storage);
        if (globals.json) printJson({ organizations: rows.map(organizationView) });
        // As `sites list` and `keys list` say it: an empty output read as a command that did nothing.
        else if (rows.length === 0) process.stdout.write('No organizations.\n');
        else for (const o of rows) process.stdout.write(`${o.id}  ${o.name}  plan ${o.plan}\n`);
      });
    });
  orgs
    .command('create')
    .description('create an organization')
    .requiredOption('--name <name>', 'display name')
    .option('--plan <id>', 'plan id', 'free')
    .action(async (options: { name: string; plan: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const name = displayName(options.name);
      await withStorage(globals, async (storage) => {
        if (!(await getPlan(storage, options.plan))) throw new CliError(`No plan "${options.plan}"`);
        const org = await createOrganization(storage, { name, plan: options.plan });
        if (globals.json) printJson(organizationView(org));
        else process.stdout.write(`Created organization ${org.id} (${org.name}) on plan ${org.plan}\n`);
      });
    });
  orgs
    .command('set-plan')
    .description("change an organization's plan")
    .argument('<org>', 'organization id')
    .argument('<plan>', 'plan id')
    .action(async (org: string, plan: string, _options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        if (!(await getPlan(storage, plan))) throw new CliError(`No plan "${plan}"`);
        if (!(await setOrganizationPlan(storage, org, plan))) throw new CliError(`No organization "${org}"`);
        if (globals.json) printJson({ organization: org, plan });
        else process.stdout.write(`Organization ${org} is now on plan ${plan}\n`);
      });
    });

  const plans = program.command('plans').description('manage plans: credits, overage and rate limits');
  plans
    .command('list')
    .description('list plans')
    .action(async (_options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await withStorage(globals, async (storage) => {
        const rows = await listPlans(storage);
        if (globals.json) printJson({ plans: rows });
        else
          for (const p of rows)
            process.stdout.write(
              `${p.id}  ${p.monthlyCredits} credits/month  overage ${p.overageEnabled ? `on (cap ${p.overageCap ?? 'none'})` : 'off'}  cost ${p.creditCost}/request  ${p.orgRequestsPerHour}/h per org  ${p.ipRequestsPerDay}/day per IP  admin ${p.adminRequestsPerMinute}/min\n`,
            );
      });
    });
  plans
    .command('set')
    .description('create a plan or change some of its settings')
    .argument('<id>', 'plan id, e.g. free or team')
    .option('--name <name>', 'display name')
    .option('--monthly-credits <n>', 'credits included per calendar month')
    .option('--overage <on|off>', 'allow requests past the included credits')
    .option('--overage-cap <n|none>', 'most overage credits per month')
    .option('--credit-cost <n>', 'credits one assistant request costs')
    .option('--org-requests-per-hour <n>', 'assistant requests per organization per hour')
    .option('--ip-requests-per-day <n>', 'assistant requests per IP address per day')
    .option('--admin-requests-per-minute <n>', 'admin API requests per organization per minute')
    .action(
      async (
        id: string,
        options: {
          name?: string;
          monthlyCredits?: string;
          overage?: string;
          overageCap?: string;
          creditCost?: string;
          orgRequestsPerHour?: string;
          ipRequestsPerDay?: string;
          adminRequestsPerMinute?: string;
        },
        command: Command,
      ) => {
        const globals = command.optsWithGlobals<GlobalOptions>();
        planId(id);
        if (options.overage !== undefined && !['on', 'off'].includes(options.overage))
          throw new CliError('--overage must be on or off');
        const input: PlanInput = {
          name: options.name === undefined ? undefined : displayName(options.name),
          monthlyCredits: nonNegativeInteger('--monthly-credits', options.monthlyCredits),
          overageEnabled: options.overage === undefined ? undefined : options.overage === 'on',
          overageCap:
            options.overageCap === 'none' ? null : nonNegativeInteger('--overage-cap', options.overageCap),
          creditCost: positiveInteger('--credit-cost', options.creditCost),
          orgRequestsPerHour: positiveInteger('--org-requests-per-hour', options.orgRequestsPerHour),
          ipRequestsPerDay: positiveInteger('--ip-requests-per-day', options.ipRequestsPerDay),
          adminRequestsPerMinute: positiveInteger(
            '--admin-requests-per-minute',
            options.adminRequestsPerMinute,
          ),
        };
        await withStorage(globals, async (storage) => {
          const plan = await upsertPlan(storage, id, input);
          if (globals.json) printJson(plan);
          else process.stdout.write(`Plan ${plan.id} saved.\n`);
        });
      },
    );
}
