import type { Command } from 'commander';
import { dailyUsage, dayOf, getBalance } from '../../limits/credits.ts';
import { FALLBACK_PLAN, getOrganizationPlan } from '../../tenancy/plans.ts';
import { CliError, type GlobalOptions, printJson, withStorage } from '../context.ts';
import { resolveOrganization } from './keys.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function registerUsage(program: Command): void {
  program
    .command('usage')
    .description("an organization's credits this month and its usage per day")
    .option('--org <id>', 'organization')
    .option('--site <domain>', 'a site of the organization')
    .option('--from <day>', 'first day, YYYY-MM-DD (default: first of this month)')
    .option('--to <day>', 'last day, YYYY-MM-DD (default: today)')
    .action(
      async (options: { org?: string; site?: string; from?: string; to?: string }, command: Command) => {
        const globals = command.optsWithGlobals<GlobalOptions>();
        for (const [flag, value] of [
          ['--from', options.from],
          ['--to', options.to],
        ] as const) {
          if (value !== undefined && !DAY.test(value))
            throw new CliError(`${flag} must be a day, YYYY-MM-DD`);
        }
        await withStorage(globals, async (storage) => {
          const owner = await resolveOrganization(storage, options);
          const to = options.to ?? dayOf(new Date());
          const from = options.from ?? `${to.slice(0, 7)}-01`;
          const plan = (await getOrganizationPlan(storage, owner.organizationId)) ?? FALLBACK_PLAN;
          const balance = await getBalance(storage, owner.organizationId);
          const days = await dailyUsage(storage, owner.organizationId, { from, to });
          if (globals.json) {
            printJson({ organization: owner.organizationId, plan, period: balance, from, to, days });
            return;
          }
          process.stdout.write(
            `Organization ${owner.organizationId}, plan ${plan.id}: ${balance.used - balance.overage} of ${balance.included} included credits used in ${balance.period}, ${balance.overage} overage, ${balance.remaining} left.\n`,
          );
          for (const d of days)
            process.stdout.write(
              `${d.day}  ${d.requests} requests  ${d.credits} credits  ${d.overage} overage\n`,
            );
          if (days.length === 0) process.stdout.write(`No usage from ${from} to ${to}.\n`);
        });
      },
    );
}
