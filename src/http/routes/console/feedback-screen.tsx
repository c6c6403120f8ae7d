import { Hono } from 'hono';
import { listFeedback, resolveFeedback } from '../../../analytics/feedback-inbox.ts';
import { markdownPlainText } from '../../../pages/section-html.ts';
import type { Storage } from '../../../storage/database.ts';
import { listSites } from '../../../tenancy/sites.ts';
import { DocentError } from '../../errors.ts';
import { FilterBar, filterFromQuery, withQuery } from './analytics-filter-bar.tsx';
import type { ConsoleEnv } from './console-env.ts';
import { readForm } from './form-body.ts';
import { Csrf, Layout } from './layout.tsx';
import { textStart } from './text-start.ts';

/** Feedback items per page of the inbox. */
const FEEDBACK_PER_PAGE = 50;

/** The feedback inbox: votes and comments with their question and answer; mark each resolved. */
export function feedbackScreen(deps: { storage: Storage; scriptSrc: string | null }): Hono<ConsoleEnv> {
  const route = new Hono<ConsoleEnv>();
  route.get('/console/feedback', async (c) => {
    const session = c.get('session');
    const { filter, query, error } = filterFromQuery(c);
    const show = feedbackTab(c.req.query('show'));
    const cursor = c.req.query('cursor');
    const [sites, inbox] = await Promise.all([
      listSites(deps.storage, session.organization.id),
      listFeedback(
        deps.storage,
        session.organization.id,
        { ...filter, resolved: resolvedOf(show) },
        { limit: FEEDBACK_PER_PAGE, ...(cursor ? { cursor } : {}) },
      ),
    ]);
    const tab = (value: string, label: string) => (
      <a
        href={withQuery('/console/feedback', { ...query, show: value }, {})}
        aria-current={show === value ? 'page' : undefined}
      >
        {label}
      </a>
    );
    return c.html(
      <Layout title="Feedback" session={session} active="feedback" scriptSrc={deps.scriptSrc}>
        <FilterBar
          action="/console/feedback"
          query={query}
          sites={sites}
          error={error}
          fields={['feedback']}
        />
        <p class="row">
          {tab('open', 'Open')} {tab('resolved', 'Resolved')} {tab('all', 'All')} · Export:
          <a href={withQuery('/console/export/feedback.csv', { ...query, show }, {})}>CSV</a>
          <a href={withQuery('/console/export/feedback.jsonl', { ...query, show }, {})}>JSONL</a>
        </p>
        <div class="stack">
          {inbox.items.map((f, i) => (
            <div class="card">
              <div class="row">
                <span class={`badge ${f.rating === 'up' ? 'ok' : 'bad'}`}>
                  {f.rating === 'up' ? 'Helpful' : 'Not helpful'}
                </span>
                <span class="muted">
                  {f.site} · {f.updatedAt.slice(0, 16).replace('T', ' ')} · reader <code>{f.fpHash}</code>
                </span>
                {/* Before the question in the card: each says which question it is about, else a screen
                    reader tabbing through the inbox hears the same "Mark resolved" for every item. */}
                <a href={`/console/conversations/${f.threadId}`} aria-describedby={`feedback-${i}-question`}>
                  conversation
                </a>
                <form method="post" action="/console/feedback/resolve" style="margin-left:auto">
                  <Csrf session={session} />
                  <input type="hidden" name="messageId" value={f.messageId} />
                  <input type="hidden" name="fpHash" value={f.fpHash} />
                  <input type="hidden" name="resolved" value={f.resolvedAt ? 'false' : 'true'} />
                  <button class="secondary" type="submit" aria-describedby={`feedback-${i}-question`}>
                    {f.resolvedAt ? 'Reopen' : 'Mark resolved'}
                  </button>
                </form>
              </div>
              {f.comment ? <p>“{f.comment}”</p> : null}
              <p id={`feedback-${i}-question`}>
                <strong>Q:</strong> {shortened(f.question)}
              </p>
              <p class="muted">
                <strong>A:</strong> {f.regenerated ? <span class="badge">Answer regenerated</span> : null}{' '}
                {preview(f.answer)}
              </p>
            </div>
          ))}
        </div>
        {inbox.items.length === 0 ? <p class="muted">No feedback here.</p> : null}
        {inbox.nextCursor || cursor ? (
          <p class="row">
            {cursor ? (
              <a href={withQuery('/console/feedback', { ...query, show }, { cursor: undefined })}>← Newest</a>
            ) : null}
            {inbox.nextCursor ? (
              <a href={withQuery('/console/feedback', { ...query, show }, { cursor: inbox.nextCursor })}>
                Older →
              </a>
            ) : null}
          </p>
        ) : null}
      </Layout>,
    );
  });

  route.post('/console/feedback/resolve', async (c) => {
    const session = c.get('session');
    const form = await readForm(c);
    const messageId = typeof form.messageId === 'string' ? form.messageId : '';
    const fpHash = typeof form.fpHash === 'string' ? form.fpHash : '';
    const changed = await resolveFeedback(deps.storage, session.organization.id, {
      messageId,
      fpHash,
      resolved: form.resolved === 'true',
    });
    if (!changed) throw new DocentError('not_found', 'No such feedback in this organization');
    return c.redirect(backToInbox(c.req.header('Referer')), 303);
  });
  return route;
}

/** The inbox's tab a query's `show` names: open unless it says resolved or all (its export takes it too). */
export function feedbackTab(show: string | undefined): 'open' | 'resolved' | 'all' {
  return show === 'resolved' || show === 'all' ? show : 'open';
}

/** The `resolved` filter of a tab. */
export function resolvedOf(tab: 'open' | 'resolved' | 'all'): boolean | undefined {
  return tab === 'all' ? undefined : tab === 'resolved';
}

/**
 * The inbox as the owner was viewing it (its filters, from `Referer`), as a path on this server: a
 * malformed Referer, or one of another page or host, is the plain inbox.
 */
export function backToInbox(referer: string | undefined): string {
  const inbox = '/console/feedback';
  if (referer === undefined || !URL.canParse(referer)) return inbox;
  const url = new URL(referer);
  return url.pathname === inbox ? `${inbox}${url.search}` : inbox;
}

/** The start of an answer as text: its Markdown's syntax dropped, 400 characters at most. */
function preview(answer: string): string {
  return shortened(markdownPlainText(answer));
}

/**
 * 400 characters at most; the conversation's link shows it all. A question of one pasted 60,000-character
 * word, shown whole, took the browser tens of seconds to lay out, wrapped: the inbox never appeared.
 */
function shortened(text: string): string {
  return text.length > 400 ? `${textStart(text, 400)}…` : text;
}
