import { Hono } from 'hono';
import { raw } from 'hono/html';
import { deleteConversation, listConversations } from '../../../analytics/conversations.ts';
import { listThreadFeedback } from '../../../assistant/feedback.ts';
import { listThreadMessages } from '../../../assistant/threads.ts';
import { sectionHtml } from '../../../pages/section-html.ts';
import type { Storage } from '../../../storage/database.ts';
import { getOrganizationThread } from '../../../tenancy/organization-threads.ts';
import { listSites } from '../../../tenancy/sites.ts';
import { DocentError } from '../../errors.ts';
import { FilterBar, filterFromQuery, withQuery } from './analytics-filter-bar.tsx';
import { Breakable } from './breakable.tsx';
import type { ConsoleEnv } from './console-env.ts';
import { Csrf, Layout } from './layout.tsx';
import { consoleSourceHref } from './source-href.ts';
import { textStart } from './text-start.ts';

/** Conversations per page of the list. */
const CONVERSATIONS_PER_PAGE = 50;

/** Conversations: the filtered list with exports, and each thread in full (sources, timings, feedback). */
export function conversationsScreen(deps: { storage: Storage; scriptSrc: string | null }): Hono<ConsoleEnv> {
  const route = new Hono<ConsoleEnv>();

  route.get('/console/conversations', async (c) => {
    const session = c.get('session');
    const { filter, query, error } = filterFromQuery(c);
    const cursor = c.req.query('cursor');
    const [sites, list] = await Promise.all([
      listSites(deps.storage, session.organization.id),
      listConversations(deps.storage, session.organization.id, filter, {
        limit: CONVERSATIONS_PER_PAGE,
        ...(cursor ? { cursor } : {}),
      }),
    ]);
    return c.html(
      <Layout title="Conversations" session={session} active="conversations" scriptSrc={deps.scriptSrc}>
        <FilterBar
          action="/console/conversations"
          query={query}
          sites={sites}
          error={error}
          fields={['answered', 'feedback', 'page', 'version', 'language', 'q']}
        />
        <p class="row">
          Export these conversations:
          <a href={withQuery('/console/export/conversations.csv', query, {})}>CSV</a>
          <a href={withQuery('/console/export/conversations.jsonl', query, {})}>JSONL</a>
        </p>
        <table>
          <thead>
            <tr>
              <th>Last active</th>
              <th>Site</th>
              <th>First question</th>
              <th>Messages</th>
              <th>Couldn't answer</th>
              <th>Feedback</th>
              <th>Page</th>
              <th>Reader</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((t) => (
              <tr>
                <td class="when">{t.updatedAt.slice(0, 16).replace('T', ' ')}</td>
                <td class="word">{t.site}</td>
                <td>
                  <a href={`/console/conversations/${t.threadId}`}>{textStart(t.firstQuestion, 140)}</a>
                </td>
                <td>{t.messageCount}</td>
                <td>{t.unanswered > 0 ? <span class="badge bad">{t.unanswered}</span> : ''}</td>
                <td>
                  {t.feedbackUp > 0 ? <span class="badge ok">{t.feedbackUp} helpful</span> : null}{' '}
                  {t.feedbackDown > 0 ? <span class="badge bad">{t.feedbackDown} not</span> : null}
                </td>
                {/* The page is the reader's currentPath (200 characters, any): it may break anywhere, but
                    the other columns must not squeeze a short path ("index") to a letter's width. */}
                <td class="path">{t.page ?? ''}</td>
                <td class="word">
                  <code>{t.fpHash}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {list.items.length === 0 ? <p class="muted">No conversations match.</p> : null}
        {list.nextCursor || cursor ? (
          <p class="row">
            {cursor ? (
              <a href={withQuery('/console/conversations', query, { cursor: undefined })}>← Newest</a>
            ) : null}
            {list.nextCursor ? (
              <a href={withQuery('/console/conversations', query, { cursor: list.nextCursor })}>
                Older conversations →
              </a>
            ) : null}
          </p>
        ) : null}
      </Layout>,
    );
  });

  route.get('/console/conversations/:id', async (c) => {
    const session = c.get('session');
    const found = await getOrganizationThread(deps.storage, session.organization.id, c.req.param('id'));
    if (!found) throw new DocentError('not_found', 'No such conversation in this organization');
    const [messages, feedback] = await Promise.all([
      listThreadMessages(deps.storage, found.thread.id),
      listThreadFeedback(deps.storage, found.thread.id),
    ]);
    return c.html(
      <Layout title="Conversation" session={session} active="conversations" scriptSrc={deps.scriptSrc}>
        <p class="muted">
          Site {found.domain} · started {found.thread.created_at.slice(0, 16).replace('T', ' ')} ·{' '}
          {messages.length} messages
        </p>
        {messages.map((m) => (
          <div class={`msg ${m.role}`}>
            <div class="row">
              <strong>{m.role === 'user' ? 'Reader' : 'Assistant'}</strong>
              <span class="muted">{m.createdAt.slice(0, 19).replace('T', ' ')}</span>
              {m.role === 'assistant' && m.status !== 'complete' ? (
                <span class="badge warn">{m.status}</span>
              ) : null}
            </div>
            <AnswerText role={m.role} content={m.content} pagesBase={`/sites/${found.domain}/pages/`} />
            {m.sources.length > 0 ? (
              <ol>
                {m.sources.map((s) => (
                  <li value={/^[1-9]\d{0,2}$/.test(s.id ?? '') ? s.id : undefined}>
                    <a href={consoleSourceHref(s.url, found.domain)}>{s.title}</a>
                  </li>
                ))}
              </ol>
            ) : null}
            {m.role === 'assistant' ? (
              <p class="muted">
                {m.timings?.firstTokenMs !== undefined ? `first token ${m.timings.firstTokenMs} ms · ` : ''}
                {m.timings?.totalMs !== undefined ? `total ${m.timings.totalMs} ms · ` : ''}
                {m.usage ? `${m.usage.promptTokens} + ${m.usage.completionTokens} tokens` : ''}
              </p>
            ) : null}
            {(feedback.get(m.id) ?? []).map((f) => (
              <p>
                <span class={`badge ${f.rating === 'up' ? 'ok' : 'bad'}`}>
                  {f.rating === 'up' ? 'Helpful' : 'Not helpful'}
                </span>{' '}
                {f.regeneratedAnswer !== null ? (
                  <span class="badge">On an answer since regenerated</span>
                ) : null}{' '}
                {f.comment ?? ''}
              </p>
            ))}
          </div>
        ))}
        <form
          method="post"
          action={`/console/conversations/${found.thread.id}/delete`}
          data-confirm="Delete this conversation? Its messages, feedback and votes are gone for good."
        >
          <Csrf session={session} />
          <button class="danger" type="submit">
            Delete this conversation
          </button>
        </form>
      </Layout>,
    );
  });

  route.post('/console/conversations/:id/delete', async (c) => {
    const session = c.get('session');
    const deleted = await deleteConversation(deps.storage, session.organization.id, c.req.param('id'));
    if (!deleted) throw new DocentError('not_found', 'No such conversation in this organization');
    return c.redirect('/console/conversations', 303);
  });
  return route;
}

/**
 * An answer as the reader saw it: its Markdown rendered (sanitized, bounded: src/pages/section-html.ts),
 * or as written when too long to render; a reader's message as typed.
 */
function AnswerText(props: { role: string; content: string; pagesBase: string }) {
  const html = props.role === 'assistant' ? sectionHtml(props.content, props.pagesBase) : null;
  return html === null ? (
    <pre>
      <Breakable text={props.content} />
    </pre>
  ) : (
    <div class="answer">{raw(html)}</div>
  );
}
