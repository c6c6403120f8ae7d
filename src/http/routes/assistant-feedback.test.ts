import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FEEDBACK_COMMENT_CHARS } from '../../assistant/feedback.ts';
import {
  MAX_STARTER_QUESTION_CHARS,
  MAX_STARTER_QUESTIONS,
} from '../../assistant/providers/site-model-settings.ts';
import { ingestSite } from '../../ingest/ingest-site.ts';
import { getBalance } from '../../limits/credits.ts';
import { createTenant, type Tenant } from '../../limits/limits-fixtures.ts';
import { dialects } from '../../testing/databases.ts';
import { startTestServer, type TestServer } from '../../testing/server.ts';
import { smallDocs } from '../../testing/small-docs.ts';

interface ErrorJson {
  error: { code: string; message: string; details?: { path: string; message: string }[]; requestId: string };
}

interface Asked {
  messageId: string;
  threadId: string;
  threadKey: string;
}

interface Vote {
  fp: string;
  rating: string;
  comment: string | null;
  createdAt: string;
  updatedAt: string;
  resolvedAt: string | null;
}

interface Transcript {
  messages: { id: string; role: string; feedback?: Vote[] }[];
}

const question = (text: string) => [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }];

describe.each(dialects)('widget feedback and config on %s', (dialect) => {
  let server: TestServer;
  let docsDir: string;
  let acme: Tenant;
  let other: Tenant;

  /** Asks on v2 and returns the ids of the answer as its `start` chunk gave them. */
  const ask = async (tenant: Tenant, body: Record<string, unknown> = {}): Promise<Asked> => {
    const response = await fetch(`${server.baseUrl}/v2/assistant/${tenant.site.domain}/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.assistantKey}` },
      body: JSON.stringify({ fp: 'reader-1', messages: question('How do I rotate API keys?'), ...body }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const start = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>)
      .find((chunk) => chunk.type === 'start') as
      | { messageId: string; messageMetadata: { threadId: string; threadKey?: string } }
      | undefined;
    if (!start) throw new Error(`no start chunk in ${text}`);
    return {
      messageId: start.messageId,
      threadId: start.messageMetadata.threadId,
      threadKey: start.messageMetadata.threadKey ?? '',
    };
  };

  const feedback = (
    body: unknown,
    init: { tenant?: Tenant; prefix?: string; contentType?: string; raw?: string } = {},
  ) => {
    const tenant = init.tenant ?? acme;
    return fetch(`${server.baseUrl}${init.prefix ?? ''}/v2/assistant/${tenant.site.domain}/feedback`, {
      method: 'POST',
      headers: {
        'Content-Type': init.contentType ?? 'application/json',
        Authorization: `Bearer ${tenant.assistantKey}`,
      },
      body: init.raw ?? JSON.stringify(body),
    });
  };

  const transcript = async (threadId: string, tenant = acme): Promise<Transcript> => {
    const response = await fetch(`${server.baseUrl}/v1/admin/threads/${threadId}`, {
      headers: { Authorization: `Bearer ${tenant.adminKey}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Transcript;
  };

  const ledger = (tenant: Tenant) =>
    server.storage.db
      .selectFrom('credit_ledger')
      .select('request_id')
      .where('organization_id', '=', tenant.organization.id)
      .execute();

  beforeAll(async () => {
    server = await startTestServer(dialect);
    docsDir = smallDocs();
    acme = await createTenant(server.storage, { domain: 'acme' });
    other = await createTenant(server.storage, { domain: 'other' });
    for (const tenant of [acme, other]) await ingestSite(server.storage, tenant.site.id, docsDir);
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(docsDir, { recursive: true, force: true });
  });

  it('stores an answer under the message id its stream started with (v2 and v1)', async () => {
    const asked = await ask(acme);
    const stored = (await transcript(asked.threadId)).messages;
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(stored[1]?.id).toBe(asked.messageId);

    const v1 = await fetch(`${server.baseUrl}/v1/assistant/acme/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${acme.assistantKey}` },
      body: JSON.stringify({
        fp: 'reader-1',
        messages: [{ id: 'm1', role: 'user', content: 'Billing?', parts: [] }],
      }),
    });
    const first = (await v1.text()).split('\n')[0] ?? '';
    expect(first).toMatch(/^f:/);
    const streamed = (JSON.parse(first.slice(2)) as { messageId: string }).messageId;
    const v1Thread = v1.headers.get('X-Thread-Id') ?? '';
    expect((await transcript(v1Thread)).messages[1]?.id).toBe(streamed);
  });

  it('records a vote, changes it, and shows it in the transcript; a retry changes nothing', async () => {
    const asked = await ask(acme);
    const vote = { fp: 'reader-1', threadId: asked.threadId, messageId: asked.messageId };
    const up = await feedback({ ...vote, threadKey: asked.threadKey, rating: 'up' });
    expect(up.status).toBe(200);
    const upJson = (await up.json()) as { updatedAt: string };
    expect(upJson).toEqual({
      messageId: asked.messageId,
      rating: 'up',
      comment: null,
      updatedAt: expect.any(String),
    });

    // The same vote again (a retry), without the optional key, under /discovery: unchanged.
    const again = await feedback({ ...vote, rating: 'up', comment: '  ' }, { prefix: '/discovery' });
    expect(await again.json()).toEqual(upJson);

    // The owner resolved it; a changed vote reopens it.
    await server.storage.db
      .updateTable('message_feedback')
      .set({ resolved_at: '2030-01-01T00:00:00.000Z' })
      .where('message_id', '=', asked.messageId)
      .execute();
    const down = await feedback({ ...vote, rating: 'down', comment: '  The port is wrong.  ' });
    expect(down.status).toBe(200);
    const downJson = (await down.json()) as { updatedAt: string };
    expect(downJson).toMatchObject({
      messageId: asked.messageId,
      rating: 'down',
      comment: 'The port is wrong.',
    });
    expect(downJson.updatedAt >= upJson.updatedAt).toBe(true);

    const messages = (await transcript(asked.threadId)).messages;
    expect(messages[0]).not.toHaveProperty('feedback');
    expect(messages[1]?.feedback).toEqual([
      {
        fp: 'reader-1',
        rating: 'down',
        comment: 'The port is wrong.',
        createdAt: expect.any(String),
        updatedAt: downJson.updatedAt,
        resolvedAt: null,
        regeneratedAnswer: null,
      },
    ]);
    expect(messages[1]?.feedback?.[0]?.createdAt).toBe(upJson.updatedAt);

    // Another answer of the thread has no votes yet.
    const followUp = await ask(acme, { threadId: asked.threadId, threadKey: asked.threadKey });
    const after = (await transcript(asked.threadId)).messages;
    expect(after.find((m) => m.id === followUp.messageId)?.feedback).toEqual([]);
  });

  it('checks the thread as a follow-up does: 404 thread_not_found', async () => {
    const asked = await ask(acme);
    const theirs = await ask(other);
    const vote = { fp: 'reader-1', threadId: asked.threadId, messageId: asked.messageId, rating: 'up' };
    const cases: [string, Response][] = [
      ['another fingerprint', await feedback({ ...vote, fp: 'reader-2' })],
      ['a wrong thread key', await feedback({ ...vote, threadKey: 'thk_wrong' })],
      ['an unknown thread', await feedback({ ...vote, threadId: 'thr_nope' })],
      [
        "another site's thread",
        await feedback({
          ...vote,
          threadId: theirs.threadId,
          threadKey: theirs.threadKey,
          messageId: theirs.messageId,
        }),
      ],
    ];
    for (const [label, response] of cases) {
      expect(response.status, label).toBe(404);
      expect(((await response.json()) as ErrorJson).error.code, label).toBe('thread_not_found');
    }
    // With its own key, the other site's reader may vote there.
    const own = await feedback(
      { fp: 'reader-1', threadId: theirs.threadId, messageId: theirs.messageId, rating: 'up' },
      { tenant: other },
    );
    expect(own.status).toBe(200);
  });

  it('needs an answer of that thread: 404 not_found', async () => {
    const asked = await ask(acme);
    const elsewhere = await ask(acme);
    const questionId = (await transcript(asked.threadId)).messages[0]?.id;
    const vote = { fp: 'reader-1', threadId: asked.threadId, rating: 'down' };
    for (const [label, messageId] of [
      ['the question', questionId],
      ['an unknown id', 'msg_nope'],
      ["another thread's answer", elsewhere.messageId],
    ] as const) {
      const response = await feedback({ ...vote, messageId });
      expect(response.status, label).toBe(404);
      const body = (await response.json()) as ErrorJson;
      expect(body.error.code, label).toBe('not_found');
      expect(body.error.message, label).toBe('No such answer in this thread');
    }
  });

  it('refuses bad bodies with 400 (or 415) and the standard error body', async () => {
    const asked = await ask(acme);
    const vote = { fp: 'reader-1', threadId: asked.threadId, messageId: asked.messageId, rating: 'up' };
    const cases: [string, Response, number, string | undefined][] = [
      ['a bad rating', await feedback({ ...vote, rating: 'meh' }), 400, 'rating'],
      [
        'a long comment',
        await feedback({ ...vote, comment: 'x'.repeat(MAX_FEEDBACK_COMMENT_CHARS + 1) }),
        400,
        'comment',
      ],
      ['an unknown key', await feedback({ ...vote, stars: 5 }), 400, undefined],
      ['no message id', await feedback({ ...vote, messageId: undefined }), 400, 'messageId'],
      ['an empty fp', await feedback({ ...vote, fp: '' }), 400, 'fp'],
      ['a long message id', await feedback({ ...vote, messageId: 'm'.repeat(513) }), 400, 'messageId'],
      ['a NUL character', await feedback({ ...vote, comment: 'a\u0000b' }), 400, 'comment'],
      ['not JSON', await feedback(vote, { raw: '{"fp":' }), 400, undefined],
      ['not sent as JSON', await feedback(vote, { contentType: 'text/plain' }), 415, undefined],
    ];
    for (const [label, response, status, path] of cases) {
      expect(response.status, label).toBe(status);
      const body = (await response.json()) as ErrorJson;
      expect(body.error.requestId, label).toEqual(expect.any(String));
      if (path !== undefined) expect(body.error.details?.[0]?.path, label).toBe(path);
    }
    const longest = await feedback({ ...vote, comment: ` ${'x'.repeat(MAX_FEEDBACK_COMMENT_CHARS)} ` });
    expect(longest.status).toBe(200);
  });

  it('costs no credit', async () => {
    const asked = await ask(acme);
    const entries = (await ledger(acme)).length;
    const used = (await getBalance(server.storage, acme.organization.id)).used;
    for (const rating of ['up', 'down', 'up']) {
      const response = await feedback({
        fp: 'reader-1',
        threadId: asked.threadId,
        messageId: asked.messageId,
        rating,
      });
      expect(response.status).toBe(200);
    }
    expect((await ledger(acme)).length).toBe(entries);
    expect((await getBalance(server.storage, acme.organization.id)).used).toBe(used);
  });

  it('counts feedback and config in windows of their own, not against answers', async () => {
    const limited = await createTenant(server.storage, {
      domain: 'limited',
      plan: { orgRequestsPerHour: 2 },
    });
    await ingestSite(server.storage, limited.site.id, docsDir);
    const asked = await ask(limited);
    const vote = { fp: 'reader-1', threadId: asked.threadId, messageId: asked.messageId, rating: 'up' };
    const config = () =>
      fetch(`${server.baseUrl}/v2/assistant/limited/config`, {
        headers: { Authorization: `Bearer ${limited.assistantKey}` },
      });
    expect((await feedback(vote, { tenant: limited })).status).toBe(200);
    expect((await config()).status).toBe(200);
    // The widget's windows are used up; the answers' still have one request left.
    const refused = await feedback(vote, { tenant: limited });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as ErrorJson).error.code).toBe('rate_limited');
    expect((await config()).status).toBe(429);
    const second = await ask(limited, { threadId: asked.threadId });
    expect(second.messageId).toMatch(/^msg_/);
    const third = await fetch(`${server.baseUrl}/v2/assistant/limited/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${limited.assistantKey}` },
      body: JSON.stringify({ fp: 'reader-1', messages: question('Billing?') }),
    });
    expect(third.status).toBe(429);
  });

  it('serves the starter questions set through the admin API as the widget config', async () => {
    const settings = (body: unknown) =>
      fetch(`${server.baseUrl}/v1/admin/sites/acme/settings`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${acme.adminKey}` },
        body: JSON.stringify(body),
      });
    const config = async (prefix = '') => {
      const response = await fetch(`${server.baseUrl}${prefix}/v2/assistant/acme/config`, {
        headers: { Authorization: `Bearer ${acme.assistantKey}`, Origin: 'https://docs.acme.example' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('Access-Control-Allow-Origin')).toBe('https://docs.acme.example');
      return response.json();
    };
    expect(await config()).toEqual({ domain: 'acme', name: 'acme', starterQuestions: [] });

    const set = await settings({
      starterQuestions: ['  How do I rotate API keys? ', 'When are invoices sent?'],
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({
      domain: 'acme',
      model: null,
      instructions: null,
      starterQuestions: ['How do I rotate API keys?', 'When are invoices sent?'],
      modelOptions: null,
      modelInUse: { model: 'builtin', problem: null },
    });
    const expected = {
      domain: 'acme',
      name: 'acme',
      starterQuestions: ['How do I rotate API keys?', 'When are invoices sent?'],
    };
    expect(await config()).toEqual(expected);
    expect(await config('/discovery')).toEqual(expected);
    // Other settings change without touching them; null clears them.
    expect(await (await settings({ instructions: 'Be brief.' })).json()).toMatchObject({
      starterQuestions: expected.starterQuestions,
    });
    expect(await (await settings({ starterQuestions: null })).json()).toMatchObject({
      starterQuestions: null,
    });
    expect(await config()).toEqual({ domain: 'acme', name: 'acme', starterQuestions: [] });

    const tooMany = Array.from({ length: MAX_STARTER_QUESTIONS + 1 }, (_, i) => `Question ${i}?`);
    for (const [label, starterQuestions, path] of [
      ['too many', tooMany, 'starterQuestions'],
      ['too long', ['x'.repeat(MAX_STARTER_QUESTION_CHARS + 1)], 'starterQuestions.0'],
      ['blank', ['   '], 'starterQuestions.0'],
      ['not a list', 'How?', 'starterQuestions'],
    ] as const) {
      const response = await settings({ starterQuestions });
      expect(response.status, label).toBe(400);
      expect(((await response.json()) as ErrorJson).error.details?.[0]?.path, label).toBe(path);
    }
    expect((await settings({ starterQuestions: tooMany.slice(1) })).status).toBe(200);
  });

  it('answers CORS preflights and needs the site key', async () => {
    for (const path of ['/v2/assistant/acme/feedback', '/discovery/v2/assistant/acme/config']) {
      const preflight = await fetch(`${server.baseUrl}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://docs.acme.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get('Access-Control-Allow-Origin'), path).toBe('https://docs.acme.example');
    }
    const anonymous = await fetch(`${server.baseUrl}/v2/assistant/acme/config`);
    expect(anonymous.status).toBe(401);
    const wrongSite = await fetch(`${server.baseUrl}/v2/assistant/acme/config`, {
      headers: { Authorization: `Bearer ${other.assistantKey}` },
    });
    expect(wrongSite.status).toBe(403);
  });
});
