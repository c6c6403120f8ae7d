import type { Command } from 'commander';
import { dayOf } from '../../limits/credits.ts';
import { isCalendarDay, usageReport } from '../../limits/usage-report.ts';
import { FALLBACK_PLAN, getOrganizationPlan } from '../../tenancy/plans.ts';
import { CliError, type GlobalOptions, printJson, withStorage } from '../context.ts';
import { resolveOrganization } from './keys.ts';

/** A day as given, if it is one on the calendar: 2026-13-01 or 2026-02-30 is refused, not read as none. */
function parseDay(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (isCalendarDay(value)) return value;
  throw new CliError(`${flag} must be a day on the calendar, YYYY-MM-DD (got "${value}")`);
}

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
        const givenFrom = parseDay('--from', options.from);
        const givenTo = parseDay('--to', options.to);
        const to = givenTo ?? dayOf(new Date());
        const from = givenFrom ?? `${to.slice(0, 7)}-01`;
        // An empty range would print "No usage" as if there had been none.
        if (from > to)
          throw new CliError(`--from ${from} is after --to ${givenTo === undefined ? `(today, ${to})` : to}`);
        await withStorage(globals, async (storage) => {
          const owner = await resolveOrganization(storage, options);
          const plan = (await getOrganizationPlan(storage, owner.organizationId)) ?? FALLBACK_PLAN;
          const report = await usageReport(storage, owner.organizationId, plan, { from, to });
          const { period: balance, days } = report;
          // The admin API's report, as GET /v1/admin/usage returns it.
          if (globals.json) {
            printJson(report);
            return;
          }
          process.stdout.write(
            `Organization ${owner.organizationId}, plan ${plan.id}: ${balance.used - balance.overage} of ${balance.included} included credits used in ${balance.month}, ${balance.overage} overage, ${balance.remaining} left.\n`,
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
