import { Hono } from 'hono';
import { analyticsOverview } from '../../../analytics/overview.ts';
import type { Storage } from '../../../storage/database.ts';
import { listSites } from '../../../tenancy/sites.ts';
import { FilterBar, filterFromQuery } from './analytics-filter-bar.tsx';
import { Chart } from './chart.tsx';
import type { ConsoleEnv } from './console-env.ts';
import { Layout } from './layout.tsx';

const count = (n: number) => n.toLocaleString('en-US');

/** Overview: questions, answered and not, feedback, credits and time to first token, per site and period. */
export function overviewScreen(deps: { storage: Storage; scriptSrc: string | null }): Hono<ConsoleEnv> {
  return new Hono<ConsoleEnv>().get('/console', async (c) => {
    const session = c.get('session');
    const { filter, query, error } = filterFromQuery(c);
    const [sites, overview] = await Promise.all([
      listSites(deps.storage, session.organization.id),
      analyticsOverview(deps.storage, session.organization.id, filter),
    ]);
    const share = overview.questions === 0 ? 0 : Math.round((overview.unanswered / overview.questions) * 100);
    return c.html(
      <Layout title="Overview" session={session} active="overview" scriptSrc={deps.scriptSrc}>
        <FilterBar action="/console" query={query} sites={sites} error={error} />
        <div class="cards">
          <div class="card">
            <div class="label">Questions</div>
            <div class="value">{count(overview.questions)}</div>
          </div>
          <div class="card">
            <div class="label">Answered</div>
            <div class="value">{count(overview.answered)}</div>
          </div>
          <div class="card">
            <div class="label">Couldn't answer</div>
            <div class="value">
              {count(overview.unanswered)} <span class="muted">({share} %)</span>
            </div>
          </div>
          <div class="card">
            <div class="label">Feedback: helpful / not</div>
            <div class="value">
              {count(overview.feedbackUp)} / {count(overview.feedbackDown)}
            </div>
          </div>
          <div class="card">
            <div class="label">Credits used this month</div>
            <div class="value">{count(overview.creditsUsed)}</div>
          </div>
          <div class="card">
            <div class="label">Credits left</div>
            <div class="value">{overview.creditsLeft === null ? '—' : count(overview.creditsLeft)}</div>
          </div>
          <div class="card">
            <div class="label">Time to first token p50 / p95</div>
            <div class="value">
              {overview.firstTokenMs
                ? `${Math.round(overview.firstTokenMs.p50)} / ${Math.round(overview.firstTokenMs.p95)} ms`
                : '—'}
            </div>
          </div>
        </div>
        <Chart
          title="Questions and unanswered questions"
          x={overview.series.map((b) => Date.parse(b.start) / 1000)}
          series={[
            { label: 'Questions', values: overview.series.map((b) => b.questions) },
            { label: "Couldn't answer", values: overview.series.map((b) => b.unanswered) },
          ]}
        />
        <table style="margin-top:1rem">
          <thead>
            <tr>
              <th>From</th>
              <th>Questions</th>
              <th>Couldn't answer</th>
            </tr>
          </thead>
          <tbody>
            {overview.series
              .filter((b) => b.questions > 0)
              .map((b) => (
                <tr>
                  <td class="when">{b.start.slice(0, 16).replace('T', ' ')}</td>
                  <td>{b.questions}</td>
                  <td>{b.unanswered}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </Layout>,
    );
  });
}
