/**
 * Seeds realistic analytics data for tests, browser tests and `npm run bench:console`: organizations
 * with sites and keys, and threads of readers' questions (the labelled questions of
 * eval/question-groups, varied) with answers (cited pages, timings, usage, answered or not), votes with
 * comments, question groups made by the server's own grouping, and this month's credit use. Everything
 * but the keys is deterministic from `seed` and `now`; rows are written in batched inserts inside one
 * transaction per organization, so 100,000 messages take seconds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { GroupIndex, questionTerms } from '../analytics/question-grouping.ts';
import { isAnswered } from '../assistant/answered.ts';
import { NO_COVERAGE_MESSAGE } from '../assistant/builtin-answerer.ts';
import { ingestSite } from '../ingest/ingest-site.ts';
import { periodOf } from '../limits/credits.ts';
import type { Storage } from '../storage/database.ts';
import type {
  MessageFeedbackTable,
  QuestionGroupsTable,
  ThreadMessagesTable,
  ThreadsTable,
} from '../storage/schema.ts';
import { createApiKey, hashKey } from '../tenancy/api-keys.ts';
import type { Organization } from '../tenancy/organizations.ts';
import { upsertPlan } from '../tenancy/plans.ts';
import type { Site } from '../tenancy/sites.ts';
import { repoRoot } from './paths.ts';

export interface SeedAnalyticsOptions {
  organizations?: number;
  /** Sites per organization (default 1); threads are spread over them. */
  sitesPerOrganization?: number;
  threadsPerOrganization: number;
  /** Same seed and `now`, same data (default 1). */
  seed?: number;
  /** The end of the seeded period (default: now). */
  now?: Date;
  /** Days before `now` the threads are spread over, more of them recent (default 30). */
  days?: number;
  /** Domains are `<prefix>-<letter>` (`seed-a`, `seed-b`; a second site `seed-a-2`). Default `seed`. */
  domainPrefix?: string;
  /**
   * A docs folder ingested into every site, so search (a group's closest pages) works; without it each
   * site gets page rows (no text) for Docent's own docs, enough for the page statistics.
   */
  docsDir?: string;
}

export interface SeededOrganization {
  organization: Organization;
  sites: Site[];
  adminKey: string;
  assistantKey: string;
}

export interface SeededAnalytics {
  organizations: SeededOrganization[];
  threads: number;
  messages: number;
  feedback: number;
  groups: number;
}

/** Rows per INSERT statement: well under both databases' limits on bound parameters. */
const INSERT_BATCH = 500;
const DAY_MS = 86_400_000;

/** The questions readers ask, with the topic each is about (eval/question-groups/questions.jsonl). */
function seedQuestions(): { question: string; group: string }[] {
  const file = path.join(repoRoot, 'eval', 'question-groups', 'questions.jsonl');
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { question: string; group: string });
}

/** Topics Docent's docs do not cover: their questions are always unanswered. */
const GAP_TOPICS = new Set(['sso-login', 'pricing', 'chat-app-bot']);

/** Docent's own docs pages (path, title): the pages seeded answers cite. */
const PAGES: [string, string][] = [
  ['index', 'Docent'],
  ['quickstart', 'Quickstart'],
  ['guides/configuration', 'Configuration'],
  ['guides/models', 'Language models'],
  ['guides/cli', 'CLI'],
  ['guides/self-hosting', 'Self-hosting'],
  ['guides/deployment', 'Deployment'],
  ['guides/limits-and-credits', 'Limits, credits and browser use'],
  ['guides/docs-formats', 'Docs formats'],
  ['guides/search', 'Search'],
  ['guides/agents', 'Docs for agents'],
  ['guides/widget', 'The chat widget'],
  ['api-reference/assistant-message-v2', 'Assistant message (v2)'],
  ['api-reference/assistant-feedback', 'Answer feedback'],
  ['api-reference/assistant-message', 'Assistant message (v1)'],
  ['api-reference/errors', 'Errors'],
  ['api-reference/admin', 'Admin API'],
  ['api-reference/health', 'Health'],
];

/** Which page answers a topic best (others cite a page at random). */
const TOPIC_PAGE: Record<string, string> = {
  'rotate-assistant-key': 'api-reference/admin',
  'revoke-key': 'api-reference/admin',
  'first-admin-key': 'guides/cli',
  'install-run': 'quickstart',
  postgres: 'guides/configuration',
  'embed-widget': 'guides/widget',
  'widget-theme': 'guides/widget',
  'widget-shortcut': 'guides/widget',
  'rate-limits': 'guides/limits-and-credits',
  credits: 'guides/limits-and-credits',
  'openai-model': 'guides/models',
  'local-model': 'guides/models',
  'anthropic-model': 'guides/models',
  'ingest-docs': 'guides/cli',
  'docs-formats': 'guides/docs-formats',
  mcp: 'guides/agents',
  'llms-txt': 'guides/agents',
  'search-api': 'guides/agents',
  'docker-deploy': 'guides/deployment',
  'health-checks': 'api-reference/health',
  'error-codes': 'api-reference/errors',
  'feedback-votes': 'api-reference/assistant-feedback',
};

const COMMENTS = [
  'This did not answer my question.',
  'The command in the answer does not exist in my version.',
  'Wrong page, I asked about the widget.',
  'Too long, I just needed the setting name.',
  'Outdated: the option was renamed.',
  'Great, exactly what I needed!',
];

/** mulberry32: a small, fast, seedable PRNG; `Math.random` cannot be seeded. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An id shaped like `newId`'s (time-ordered), but from the seeded generator. */
function seededId(prefix: string, ms: number, random: () => number): string {
  let time = '';
  let rest = Math.floor(ms);
  for (let i = 0; i < 8; i++) {
    time = ALPHABET[rest % 62] + time;
    rest = Math.floor(rest / 62);
  }
  let tail = '';
  for (let i = 0; i < 12; i++) tail += ALPHABET[Math.floor(random() * 62)];
  return `${prefix}_${time}${tail}`;
}

/** Writes `rows` `INSERT_BATCH` at a time. */
async function inBatches<T>(rows: readonly T[], insert: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) await insert(rows.slice(i, i + INSERT_BATCH));
}

export async function seedAnalytics(
  storage: Storage,
  options: SeedAnalyticsOptions,
): Promise<SeededAnalytics> {
  const random = prng(options.seed ?? 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const now = (options.now ?? new Date()).getTime();
  const days = options.days ?? 30;
  const prefix = options.domainPrefix ?? 'seed';
  const questions = seedQuestions();
  const result: SeededAnalytics = { organizations: [], threads: 0, messages: 0, feedback: 0, groups: 0 };

  for (let o = 0; o < (options.organizations ?? 2); o++) {
    const letter = String.fromCharCode(97 + (o % 26)) + (o >= 26 ? String(Math.floor(o / 26)) : '');
    const created = new Date(now - (days + 1) * DAY_MS).toISOString();
    const planId = seededId('plan', now, random);
    await upsertPlan(storage, planId, { name: `Seed ${letter}`, monthlyCredits: 100_000 });
    const organization: Organization = {
      id: seededId('org', now - days * DAY_MS, random),
      name: `${prefix} ${letter.toUpperCase()}`,
      plan: planId,
      created_at: created,
    };
    await storage.db.insertInto('organizations').values(organization).execute();
    const sites: Site[] = [];
    for (let s = 0; s < (options.sitesPerOrganization ?? 1); s++) {
      const domain = `${prefix}-${letter}${s === 0 ? '' : `-${s + 1}`}`;
      const site: Site = {
        id: seededId('site', now - days * DAY_MS, random),
        organization_id: organization.id,
        domain,
        name: `${domain} docs`,
        docs_dir: null,
        base_url: null,
        index_generation: 0,
        created_at: created,
        allowed_origins: '[]',
      };
      await storage.db.insertInto('sites').values(site).execute();
      if (options.docsDir !== undefined) await ingestSite(storage, site.id, options.docsDir);
      else
        await storage.db
          .insertInto('pages')
          .values(
            PAGES.map(([pagePath, title], i) => ({
              site_id: site.id,
              path: pagePath,
              title,
              description: null,
              versions: '[]',
              languages: '[]',
              content_hash: `seed-${i}`,
              updated_at: created,
              nav_order: i,
              nav_group: null,
            })),
          )
          .execute();
      sites.push(site);
    }
    const [firstSite] = sites;
    if (firstSite === undefined) continue;
    const assistant = await createApiKey(storage, {
      organizationId: organization.id,
      siteId: firstSite.id,
      kind: 'assistant',
    });
    const admin = await createApiKey(storage, {
      organizationId: organization.id,
      siteId: null,
      kind: 'admin',
    });
    result.organizations.push({ organization, sites, adminKey: admin.key, assistantKey: assistant.key });

    const threads: ThreadsTable[] = [];
    const messages: ThreadMessagesTable[] = [];
    const votes: MessageFeedbackTable[] = [];
    const asked: { message: ThreadMessagesTable; siteId: string; at: number }[] = [];
    const readers = Math.max(1, Math.floor(options.threadsPerOrganization / 3));
    for (let n = 0; n < options.threadsPerOrganization; n++) {
      const site = pick(sites);
      // More threads recently, as a growing site has; none in the future.
      const start = now - random() ** 1.4 * days * DAY_MS - 60_000;
      const turns = random() < 0.7 ? 1 : random() < 0.67 ? 2 : 3;
      const threadId = seededId('thr', start, random);
      const fp = random() < 0.2 ? 'anonymous' : `reader-${Math.floor(random() * readers)}`;
      let at = start;
      let last = start;
      const path = random() < 0.7 ? pick(PAGES)[0] : null;
      const version = random() < 0.2 ? pick(['v1', 'v2']) : null;
      const language = random() < 0.3 ? 'en' : random() < 0.07 ? 'fr' : null;
      for (let turn = 0; turn < turns; turn++) {
        const { question, group } = pick(questions);
        const text = vary(question, random);
        const questionRow: ThreadMessagesTable = {
          id: seededId('msg', at, random),
          thread_id: threadId,
          seq: turn * 2,
          role: 'user',
          content: text,
          status: 'complete',
          sources: '[]',
          finish_reason: null,
          usage: null,
          timings: null,
          request_id: seededId('req', at, random),
          created_at: new Date(at).toISOString(),
          current_path: path,
          filter_version: version,
          filter_language: language,
          question_group_id: null,
          answered: null,
          retrieval_score: null,
        };
        messages.push(questionRow);
        asked.push({ message: questionRow, siteId: site.id, at });
        last = at;
        const answerAt = at + 1_000 + Math.floor(random() * 4_000);
        const roll = random();
        const status = roll < 0.03 ? 'aborted' : roll < 0.05 ? 'error' : 'complete';
        const gap = GAP_TOPICS.has(group);
        const weak = !gap && random() < 0.1;
        const declined = gap || (!weak && random() < 0.05);
        const strength = gap ? 0.1 + random() * 0.25 : weak ? 0.2 + random() * 0.24 : 0.5 + random() * 0.5;
        const cited = declined || status !== 'complete' ? [] : [TOPIC_PAGE[group] ?? pick(PAGES)[0]];
        if (cited.length > 0 && random() < 0.3) cited.push(pick(PAGES)[0]);
        const content =
          status === 'error'
            ? ''
            : declined
              ? `${NO_COVERAGE_MESSAGE}\n\nThe closest pages I found are:\n- [${pick(PAGES)[1]}](/${pick(PAGES)[0]})`
              : status === 'aborted'
                ? 'To do this, open the'
                : `${answerText(group)} [1]${cited.length > 1 ? ' See also [2].' : ''}`;
        const firstToken = Math.round(40 + random() ** 3 * 1_500);
        const answerRow: ThreadMessagesTable = {
          id: seededId('msg', answerAt, random),
          thread_id: threadId,
          seq: turn * 2 + 1,
          role: 'assistant',
          content,
          status,
          sources: JSON.stringify(
            [...new Set(cited)].map((p, i) => ({
              id: String(i + 1),
              url: `https://${site.domain}.example.com/${p}`,
              title: PAGES.find(([pp]) => pp === p)?.[1] ?? p,
              path: p,
            })),
          ),
          finish_reason: status === 'complete' ? 'stop' : status === 'error' ? 'error' : 'unknown',
          usage: JSON.stringify({
            promptTokens: 600 + Math.floor(random() * 900),
            completionTokens: Math.ceil(content.length / 4),
          }),
          timings: JSON.stringify({
            retrievalMs: Math.round(2 + random() * 10),
            ...(content === '' ? {} : { firstTokenMs: firstToken }),
            totalMs: firstToken + Math.round(random() * 400),
          }),
          request_id: questionRow.request_id,
          created_at: new Date(answerAt).toISOString(),
          current_path: null,
          filter_version: null,
          filter_language: null,
          question_group_id: null,
          // The rule of src/assistant/answered.ts: an answer stopped after it began is judged like a complete one.
          answered: isAnswered({ status, text: content, retrievalStrength: strength }) ? 1 : 0,
          retrieval_score: Math.round(strength * 1000) / 1000,
        };
        messages.push(answerRow);
        if (status === 'complete' && random() < 0.15) {
          const happy = answerRow.answered === 1 ? random() < 0.75 : random() < 0.2;
          const votedAt = answerAt + 5_000 + Math.floor(random() * 60_000);
          votes.push({
            message_id: answerRow.id,
            fp,
            thread_id: threadId,
            site_id: site.id,
            organization_id: organization.id,
            rating: happy ? 'up' : 'down',
            comment: !happy && random() < 0.5 ? pick(COMMENTS) : happy && random() < 0.1 ? 'Thanks!' : null,
            created_at: new Date(Math.min(votedAt, now - 1)).toISOString(),
            updated_at: new Date(Math.min(votedAt, now - 1)).toISOString(),
            resolved_at:
              !happy && random() < 0.3
                ? new Date(Math.min(votedAt + 3_600_000, now - 1)).toISOString()
                : null,
          });
        }
        at = answerAt + 30_000 + Math.floor(random() * 300_000);
        if (at >= now) break;
      }
      threads.push({
        id: threadId,
        organization_id: organization.id,
        site_id: site.id,
        fp,
        key_hash: hashKey(`thk_seed_${threadId}`),
        created_at: new Date(start).toISOString(),
        updated_at: new Date(last).toISOString(),
      });
    }

    // Groups as the server makes them: each site's questions in the order they were asked.
    const groups = new Map<string, QuestionGroupsTable>();
    for (const site of sites) {
      const index = new GroupIndex();
      for (const q of asked.filter((a) => a.siteId === site.id).sort((x, y) => x.at - y.at)) {
        const time = new Date(q.at).toISOString();
        const assignment = index.assign(questionTerms(q.message.content), () =>
          seededId('qgr', q.at, random),
        );
        if (assignment === null) continue;
        q.message.question_group_id = assignment.groupId;
        const existing = groups.get(assignment.groupId);
        groups.set(assignment.groupId, {
          id: assignment.groupId,
          organization_id: organization.id,
          site_id: site.id,
          label: existing?.label ?? q.message.content,
          signature: JSON.stringify(assignment.signature),
          created_at: existing?.created_at ?? time,
          last_seen_at: time,
        });
      }
    }

    const period = periodOf(new Date(now));
    const usedThisMonth = asked.filter((a) => periodOf(new Date(a.at)) === period).length;
    await storage.db.transaction().execute(async (trx) => {
      await inBatches(threads, (batch) => trx.insertInto('threads').values(batch).execute());
      await inBatches(messages, (batch) => trx.insertInto('thread_messages').values(batch).execute());
      await inBatches(votes, (batch) => trx.insertInto('message_feedback').values(batch).execute());
      await inBatches([...groups.values()], (batch) =>
        trx.insertInto('question_groups').values(batch).execute(),
      );
      await trx
        .insertInto('credit_balances')
        .values({ organization_id: organization.id, period, used: usedThisMonth, overage: 0 })
        .execute();
    });
    result.threads += threads.length;
    result.messages += messages.length;
    result.feedback += votes.length;
    result.groups += groups.size;
  }
  // PostgreSQL plans by table statistics, which autovacuum would gather a minute after a bulk load;
  // queries right after the seed would otherwise be planned for empty tables (seconds instead of ms).
  if (storage.dialect === 'postgres') await sql`analyze`.execute(storage.db);
  return result;
}

/** A reader's variation of a question: case, punctuation, a greeting, a typo. */
function vary(question: string, random: () => number): string {
  let text = question;
  const roll = random();
  if (roll < 0.15) text = text.toLowerCase();
  else if (roll < 0.25) text = `hi, ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
  else if (roll < 0.35) text = text.replace(/[?.!]+$/, '');
  else if (roll < 0.42) {
    // Swap two letters of a longer word: a typo.
    text = text.replace(/\b([a-z]{3,})([a-z])([a-z])([a-z]*)\b/, '$1$3$2$4');
  }
  return text;
}

function answerText(group: string): string {
  const topic = group.replaceAll('-', ' ');
  return `Here is how ${topic} works in Docent: follow the steps on the page below, then check the result in the admin API.`;
}
