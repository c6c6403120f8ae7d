import { Hono } from 'hono';
import { dailyUsage, dayOf, getBalance } from '../../../limits/credits.ts';
import type { Storage } from '../../../storage/database.ts';
import { FALLBACK_PLAN, getOrganizationPlan } from '../../../tenancy/plans.ts';
import { Chart } from './chart.tsx';
import type { ConsoleEnv } from './console-env.ts';
import { Layout } from './layout.tsx';

/** Plan and usage: the plan's limits, this month's credits, and answered requests per day. */
export function usageScreen(deps: { storage: Storage; scriptSrc: string | null }): Hono<ConsoleEnv> {
  return new Hono<ConsoleEnv>().get('/console/usage', async (c) => {
    const session = c.get('session');
    const organizationId = session.organization.id;
    const now = new Date();
    const to = dayOf(now);
    const from = `${to.slice(0, 7)}-01`;
    const [plan, balance, days] = await Promise.all([
      getOrganizationPlan(deps.storage, organizationId),
      getBalance(deps.storage, organizationId, now),
      dailyUsage(deps.storage, organizationId, { from, to }),
    ]);
    const p = plan ?? FALLBACK_PLAN;
    return c.html(
      <Layout title="Plan and usage" session={session} active="usage" scriptSrc={deps.scriptSrc}>
        <div class="cards">
          <div class="card">
            <div class="label">Plan</div>
            <div class="value">{p.name}</div>
          </div>
          <div class="card">
            <div class="label">Credits used ({balance.period})</div>
            <div class="value">{balance.used.toLocaleString('en-US')}</div>
          </div>
          <div class="card">
            <div class="label">Credits left</div>
            <div class="value">{balance.remaining.toLocaleString('en-US')}</div>
          </div>
          <div class="card">
            <div class="label">Overage</div>
            <div class="value">{balance.overage.toLocaleString('en-US')}</div>
          </div>
        </div>
        <p class="muted">
          {p.monthlyCredits.toLocaleString('en-US')} credits a month, {p.creditCost} per answer; overage{' '}
          {p.overageEnabled ? `on${p.overageCap === null ? '' : `, capped at ${p.overageCap}`}` : 'off'}; rate
          limits {p.orgRequestsPerHour.toLocaleString('en-US')} requests an hour per organization,{' '}
          {p.ipRequestsPerDay.toLocaleString('en-US')} a day per address.
        </p>
        <Chart
          title="Answered requests and credits per day, this month"
          x={days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000)}
          series={[
            { label: 'Requests', values: days.map((d) => d.requests) },
            { label: 'Credits', values: days.map((d) => d.credits) },
          ]}
        />
        <table style="margin-top:1rem">
          <thead>
            <tr>
              <th>Day</th>
              <th>Requests</th>
              <th>Credits</th>
              <th>Overage</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr>
                <td>{d.day}</td>
                <td>{d.requests}</td>
                <td>{d.credits}</td>
                <td>{d.overage}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Layout>,
    );
  });
}
