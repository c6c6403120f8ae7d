import { type Context, Hono } from 'hono';
import { creditsLeft } from '../../../analytics/overview.ts';
import {
  getRetentionDays,
  MAX_RETENTION_DAYS,
  MIN_RETENTION_DAYS,
  setRetentionDays,
} from '../../../analytics/retention.ts';
import { type DailyUsage, dailyUsage, dayOf, getBalance } from '../../../limits/credits.ts';
import type { Storage } from '../../../storage/database.ts';
import { FALLBACK_PLAN, getOrganizationPlan } from '../../../tenancy/plans.ts';
import { Chart } from './chart.tsx';
import type { ConsoleEnv } from './console-env.ts';
import { readForm } from './form-body.ts';
import { Csrf, Layout, refusedField } from './layout.tsx';

/** Plan and usage: the plan's limits, this month's credits, and answered requests per day. */
export function usageScreen(deps: { storage: Storage; scriptSrc: string | null }): Hono<ConsoleEnv> {
  const route = new Hono<ConsoleEnv>();
  route.post('/console/organization/retention', async (c) => {
    const form = await readForm(c);
    const text = typeof form.days === 'string' ? form.days.trim() : '';
    // Digits only: Number() would also read "0x10", "1e1" or "0b11", and this setting deletes conversations.
    const days = text === '' ? null : /^\d{1,6}$/.test(text) ? Number(text) : Number.NaN;
    if (days !== null && (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS))
      // The page again, the refusal at the field with what was typed, as the other console forms do.
      return usagePage(c, deps, {
        typed: text.slice(0, 20),
        error: `Keep conversations ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS} days (whole days), or leave it empty to keep them.`,
      });
    await setRetentionDays(deps.storage, c.get('session').organization.id, days);
    return c.redirect('/console/usage?saved=1', 303);
  });
  route.get('/console/usage', (c) => usagePage(c, deps));
  return route;
}

/** The plan and usage page; with `refused`, the retention form's refused value and why (status 400). */
async function usagePage(
  c: Context<ConsoleEnv>,
  deps: { storage: Storage; scriptSrc: string | null },
  refused?: { typed: string; error: string },
) {
  const session = c.get('session');
  const organizationId = session.organization.id;
  const now = new Date();
  const to = dayOf(now);
  const from = `${to.slice(0, 7)}-01`;
  const [plan, balance, days, retention] = await Promise.all([
    getOrganizationPlan(deps.storage, organizationId),
    getBalance(deps.storage, organizationId, now),
    dailyUsage(deps.storage, organizationId, { from, to }),
    getRetentionDays(deps.storage, organizationId),
  ]);
  const p = plan ?? FALLBACK_PLAN;
  const chartDays = everyDay({ from, to }, days);
  // As the overview counts them: included credits left plus the overage the plan still allows.
  const left = creditsLeft(p, balance);
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
          <div class="value">{left === null ? '—' : left.toLocaleString('en-US')}</div>
          {p.overageEnabled ? (
            <div class="muted">
              {balance.remaining.toLocaleString('en-US')} included
              {left === null
                ? ', overage uncapped'
                : ` + ${(left - balance.remaining).toLocaleString('en-US')} overage`}
            </div>
          ) : null}
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
        x={chartDays.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000)}
        series={[
          { label: 'Requests', values: chartDays.map((d) => d.requests) },
          { label: 'Credits', values: chartDays.map((d) => d.credits) },
        ]}
      />
      <h2>Conversation retention</h2>
      {c.req.query('saved') && !refused ? <div class="notice">Retention saved.</div> : null}
      {refused ? (
        <div class="notice" role="alert" id="retention-error" style="background:#fee2e2;border-color:#fca5a5">
          {refused.error}
        </div>
      ) : null}
      <form method="post" action="/console/organization/retention" class="row">
        <Csrf session={session} />
        <label>
          Delete conversations idle for more than{' '}
          <input
            name="days"
            type="number"
            min={MIN_RETENTION_DAYS}
            max={MAX_RETENTION_DAYS}
            value={refused ? refused.typed : retention === null ? '' : String(retention)}
            placeholder="keep"
            style="width:6rem"
            {...(refused ? refusedField('retention-error') : {})}
          />{' '}
          days
        </label>
        <button class="secondary" type="submit">
          Save
        </button>
        <span class="muted">
          {retention === null ? 'Now: kept until deleted.' : `Now: ${retention} days.`} Checked every hour.
        </span>
      </form>
      <h2>Per day</h2>
      <table>
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
    refused ? 400 : 200,
  );
}

/**
 * One entry per day of `range`, zeros where nothing was used: the chart's axis is the month so far (given
 * only the days with usage, one day of traffic drew a point on an axis running years).
 */
export function everyDay(range: { from: string; to: string }, used: readonly DailyUsage[]): DailyUsage[] {
  const byDay = new Map(used.map((d) => [d.day, d]));
  const out: DailyUsage[] = [];
  const end = Date.parse(`${range.to}T00:00:00Z`);
  for (let t = Date.parse(`${range.from}T00:00:00Z`); t <= end; t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? { day, requests: 0, credits: 0, overage: 0 });
  }
  return out;
}
