import { Hono } from 'hono';
import { pageStats } from '../../../analytics/pages.ts';
import { listQuestionGroups } from '../../../analytics/question-groups.ts';
import type { SiteSearch } from '../../../search/site-search.ts';
import type { Storage } from '../../../storage/database.ts';
import { listSites } from '../../../tenancy/sites.ts';
import { FilterBar, filterFromQuery, withQuery } from './analytics-filter-bar.tsx';
import type { ConsoleEnv } from './console-env.ts';
import { Layout } from './layout.tsx';

/** Characters of a question shown as a group's label or example (a pasted page would fill the screen). */
const SHOWN_QUESTION_CHARS = 200;

/** Cut between characters, not inside one (an emoji is two UTF-16 units). */
const shortened = (text: string): string =>
  text.length > SHOWN_QUESTION_CHARS
    ? `${Array.from(text).slice(0, SHOWN_QUESTION_CHARS).join('').trimEnd()}…`
    : text;

/** Groups shown per page of gaps and top questions. */
const GROUPS_PER_PAGE = 30;

/** Coverage gaps and top questions (questions grouped by meaning), and the pages answers cite. */
export function insightsScreens(deps: {
  storage: Storage;
  search: SiteSearch;
  scriptSrc: string | null;
}): Hono<ConsoleEnv> {
  const route = new Hono<ConsoleEnv>();

  for (const kind of ['gaps', 'top'] as const) {
    const path = kind === 'gaps' ? '/console/gaps' : '/console/questions';
    route.get(path, async (c) => {
      const session = c.get('session');
      const { filter, query, error } = filterFromQuery(c);
      const cursor = c.req.query('cursor');
      const [sites, groups] = await Promise.all([
        listSites(deps.storage, session.organization.id),
        listQuestionGroups(deps.storage, session.organization.id, filter, {
          kind,
          limit: GROUPS_PER_PAGE,
          search: deps.search,
          ...(cursor ? { cursor } : {}),
        }),
      ]);
      return c.html(
        <Layout
          title={kind === 'gaps' ? 'Coverage gaps' : 'Top questions'}
          session={session}
          active={kind === 'gaps' ? 'gaps' : 'questions'}
          scriptSrc={deps.scriptSrc}
        >
          <p class="muted">
            {kind === 'gaps'
              ? 'Questions the assistant could not answer, grouped by what they ask, most unanswered first (then most asked), with the pages closest to them.'
              : 'What readers ask most, grouped by what they ask.'}
          </p>
          <FilterBar action={path} query={query} sites={sites} error={error} />
          <div class="stack">
            {groups.items.map((g) => (
              <div class="card">
                <div class="row">
                  {/* A heading, as it looks: a screen reader moves from group to group by heading. */}
                  <h2 class="group" title={g.label.length > SHOWN_QUESTION_CHARS ? g.label : undefined}>
                    {shortened(g.label)}
                  </h2>
                  <span class="badge">{g.count} asked</span>
                  {g.unanswered > 0 ? <span class="badge bad">{g.unanswered} not answered</span> : null}
                </div>
                {g.examples.length > 0 ? (
                  <ul>
                    {g.examples.map((e) => (
                      <li title={e.length > SHOWN_QUESTION_CHARS ? e : undefined}>{shortened(e)}</li>
                    ))}
                  </ul>
                ) : null}
                {g.closestPages.length > 0 ? (
                  <div class="muted">
                    Closest pages: {g.closestPages.map((p) => p.title || p.path).join(' · ')}
                  </div>
                ) : (
                  <div class="muted">No page comes close.</div>
                )}
              </div>
            ))}
          </div>
          {groups.items.length === 0 ? <p class="muted">Nothing in this period.</p> : null}
          {groups.nextCursor ? (
            <p>
              <a href={withQuery(path, query, { cursor: groups.nextCursor })}>More →</a>
            </p>
          ) : null}
        </Layout>,
      );
    });
  }

  route.get('/console/pages', async (c) => {
    const session = c.get('session');
    const { filter, query, error } = filterFromQuery(c);
    const [sites, stats] = await Promise.all([
      listSites(deps.storage, session.organization.id),
      pageStats(deps.storage, session.organization.id, filter),
    ]);
    return c.html(
      <Layout title="Pages" session={session} active="pages" scriptSrc={deps.scriptSrc}>
        <FilterBar action="/console/pages" query={query} sites={sites} error={error} />
        <h2>Most cited</h2>
        <table>
          <thead>
            <tr>
              <th>Page</th>
              <th>Site</th>
              <th>Citations</th>
              <th>Helpful</th>
              <th>Not helpful</th>
            </tr>
          </thead>
          <tbody>
            {stats.mostCited.map((p) => (
              <tr>
                <td>
                  {p.title} <span class="muted">{p.path}</span>
                </td>
                <td class="word">{p.site}</td>
                <td>{p.citations}</td>
                <td>{p.up}</td>
                <td>{p.down}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h2>Never cited in this period ({stats.neverCitedTotal})</h2>
        {stats.neverCitedTotal > stats.neverCited.length ? (
          <p class="muted">The first {stats.neverCited.length}, by site and path.</p>
        ) : null}
        <table>
          <thead>
            <tr>
              <th>Page</th>
              <th>Site</th>
            </tr>
          </thead>
          <tbody>
            {stats.neverCited.map((p) => (
              <tr>
                <td>
                  {p.title} <span class="muted">{p.path}</span>
                </td>
                <td class="word">{p.site}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Layout>,
    );
  });
  return route;
}
