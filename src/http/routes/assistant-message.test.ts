import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinAnswerer } from '../../assistant/builtin-answerer.ts';
import { MAX_HISTORY_MESSAGES } from '../../assistant/model-history.ts';
import { listThreadMessages } from '../../assistant/threads.ts';
import { createApiKey } from '../../tenancy/api-keys.ts';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { type ChatResult, chatWithAssistant } from '../../testing/chat-client.ts';
import { dialects } from '../../testing/databases.ts';
import { scriptedModelStream } from '../../testing/model-streams.ts';
import { repoRoot } from '../../testing/paths.ts';
import { startTestServer, type TestServer } from '../../testing/server.ts';

const bundledDocs = path.join(repoRoot, 'docs');

function versionedDocs(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-versions-'));
  fs.mkdirSync(path.join(dir, 'v1'));
  fs.mkdirSync(path.join(dir, 'v2'));
  fs.writeFileSync(
    path.join(dir, 'docs.json'),
    JSON.stringify({
      name: 'Versions',
      navigation: {
        versions: [
          { version: 'v1', groups: [{ group: 'Old', pages: ['v1/rotate-keys'] }] },
          { version: 'v2', groups: [{ group: 'New', pages: ['v2/rotate-keys'] }] },
        ],
      },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'v1/rotate-keys.mdx'),
    '---\ntitle: Rotate keys (v1)\n---\n\nIn version one you rotate keys with the legacy rotate command.\n',
  );
  fs.writeFileSync(
    path.join(dir, 'v2/rotate-keys.mdx'),
    '---\ntitle: Rotate keys (v2)\n---\n\nIn version two you rotate keys from the dashboard settings page.\n',
  );
  return dir;
}

type Collected = ChatResult;

async function chat(
  server: TestServer,
  key: string,
  body: Record<string, unknown>,
  domain = 'docs',
  prefix = '',
): Promise<Collected> {
  return chatWithAssistant({ url: `${server.baseUrl}${prefix}/v1/assistant/${domain}/message`, key, body });
}

function userMessage(text: string, id = `u_${Math.random().toString(36).slice(2)}`) {
  return {
    id,
    role: 'user',
    content: text,
    parts: [{ type: 'text', text }],
    createdAt: new Date().toISOString(),
  };
}

async function post(
  server: TestServer,
  domain: string,
  body: unknown,
  init: { key?: string; raw?: string; contentType?: string } = {},
) {
  const response = await fetch(`${server.baseUrl}/v1/assistant/${domain}/message`, {
    method: 'POST',
    headers: {
      'Content-Type': init.contentType ?? 'application/json',
      ...(init.key ? { Authorization: `Bearer ${init.key}` } : {}),
    },
    body: init.raw ?? JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, headers: response.headers };
}

describe.each(dialects)('POST /v1/assistant/{domain}/message on %s', (dialect) => {
  let server: TestServer;
  let key: string;
  let otherKey: string;
  let otherSiteKey: string;

  beforeAll(async () => {
    // A slow answerer for the `slow` site lets the disconnect test stop a stream halfway.
    server = await startTestServer(dialect, {
      modelProvider: ({ site, sources, context }) =>
        new BuiltinAnswerer({ sources, context, deltaDelayMs: site.domain === 'slow' ? 40 : 0 }),
    });
    key = (await bootstrapSite(server.storage, { domain: 'docs', docsDir: bundledDocs })).assistantKey;
    const other = await bootstrapSite(server.storage, { domain: 'other', docsDir: bundledDocs });
    otherKey = other.assistantKey;
    const versions = await bootstrapSite(server.storage, { domain: 'versions', docsDir: versionedDocs() });
    otherSiteKey = versions.assistantKey;
    await bootstrapSite(server.storage, { domain: 'slow', docsDir: bundledDocs });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('streams a grounded, cited answer to the real AI SDK v4 client', async () => {
    const result = await chat(server, key, {
      id: 'chat-1',
      messages: [userMessage('How do I check that the database is reachable?')],
      fp: 'anonymous',
      retrievalPageSize: 5,
    });
    const threadId = result.headers?.get('X-Thread-Id');
    expect(threadId).toMatch(/^thr_/);
    expect(result.headers?.get('X-Thread-Key')).toMatch(/^thk_/);
    expect(result.headers?.get('X-Vercel-AI-Data-Stream')).toBe('v1');
    expect(result.headers?.get('Deprecation')).toMatch(/^@\d+$/);
    expect(result.headers?.get('Link')).toContain('rel="successor-version"');
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({
      promptTokens: expect.any(Number),
      completionTokens: expect.any(Number),
    });

    const message = result.message;
    expect(message?.role).toBe('assistant');
    expect(message?.content.length).toBeGreaterThan(20);
    expect(message?.content).toMatch(/\[\d+\]/);
    expect(message?.annotations).toEqual([{ threadId }]);
    const tool = message?.parts?.find((p) => p.type === 'tool-invocation');
    expect(tool?.type === 'tool-invocation' && tool.toolInvocation.state).toBe('result');
    if (tool?.type !== 'tool-invocation' || tool.toolInvocation.state !== 'result')
      throw new Error('no tool result');
    expect(tool.toolInvocation.toolName).toBe('search');
    const toolResult = tool.toolInvocation.result as {
      type: string;
      results: { path: string; url: string; metadata: { title: string } }[];
    };
    expect(toolResult.type).toBe('search');
    expect(toolResult.results.length).toBeGreaterThan(0);
    expect(toolResult.results.map((r) => r.path)).toContain('api-reference/health');
    const sources = message?.parts?.filter((p) => p.type === 'source') ?? [];
    expect(sources.length).toBeGreaterThan(0);
    // Every citation number in the text has a source part, and every source part is cited.
    const cited = new Set([...(message?.content ?? '').matchAll(/\[(\d+)\]/g)].map((m) => m[1]));
    expect(new Set(sources.map((s) => (s.type === 'source' ? s.source.id : '')))).toEqual(cited);

    const stored = await listThreadMessages(server.storage, threadId ?? '');
    expect(stored.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(stored[1]?.content).toBe(message?.content);
    expect(stored[1]?.finishReason).toBe('stop');
    expect(stored[1]?.sources.length).toBe(sources.length);
    expect(stored[1]?.timings?.totalMs).toBeGreaterThanOrEqual(0);
  });

  it('continues a thread with threadId and threadKey, and refuses other threads with 404', async () => {
    const first = await chat(server, key, {
      messages: [userMessage('What does /readyz report?')],
      fp: 'user-7',
    });
    const threadId = first.headers?.get('X-Thread-Id') ?? '';
    const threadKey = first.headers?.get('X-Thread-Key') ?? '';
    const history = [
      userMessage('What does /readyz report?'),
      { ...first.message, parts: first.message?.parts ?? [] },
    ];

    const second = await chat(server, key, {
      messages: [...history, userMessage('And /healthz?')],
      fp: 'user-7',
      threadId,
      threadKey,
    });
    expect(second.headers?.get('X-Thread-Id')).toBe(threadId);
    expect(second.headers?.get('X-Thread-Key')).toBeNull();
    expect(second.message?.annotations).toEqual([{ threadId }]);
    expect((await listThreadMessages(server.storage, threadId)).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    // Without the key (the client may not have kept it) the fingerprint binding still applies.
    const third = await chat(server, key, {
      messages: [userMessage('And on PostgreSQL?')],
      fp: 'user-7',
      threadId,
    });
    expect(third.headers?.get('X-Thread-Id')).toBe(threadId);

    const cases: [string, Record<string, unknown>, string][] = [
      ['unknown thread', { fp: 'user-7', threadId: 'thr_doesnotexist' }, 'docs'],
      ['other fingerprint', { fp: 'someone-else', threadId, threadKey }, 'docs'],
      ['wrong thread key', { fp: 'user-7', threadId, threadKey: 'thk_wrong' }, 'docs'],
    ];
    for (const [label, extra, domain] of cases) {
      const response = await post(server, domain, { messages: [userMessage('hi')], ...extra }, { key });
      expect(response.status, label).toBe(404);
      expect(JSON.parse(response.text).error.code, label).toBe('thread_not_found');
    }
    // The same thread id through another organization's site is not found either.
    const foreign = await post(
      server,
      'other',
      { messages: [userMessage('hi')], fp: 'user-7', threadId },
      { key: otherKey },
    );
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.text).error.code).toBe('thread_not_found');
  });

  it('accepts a useChat history holding every part kind, including interrupted tool calls', async () => {
    const history = [
      { id: 's1', role: 'system', content: 'be brief', parts: [] },
      userMessage('first question'),
      {
        id: 'a1',
        role: 'assistant',
        content: 'answer',
        createdAt: new Date().toISOString(),
        annotations: [{ threadId: 'x' }, 'note', 3],
        revisionId: 'rev-1',
        toolInvocations: [],
        reasoning: 'because',
        parts: [
          { type: 'step-start' },
          {
            type: 'reasoning',
            reasoning: 'thinking',
            details: [
              { type: 'text', text: 't', signature: 'sig' },
              { type: 'redacted', data: 'xx' },
            ],
          },
          {
            type: 'tool-invocation',
            toolInvocation: {
              state: 'partial-call',
              toolCallId: 'c1',
              toolName: 'search',
              args: { query: 'q' },
              step: 0,
            },
          },
          {
            type: 'tool-invocation',
            toolInvocation: { state: 'call', toolCallId: 'c2', toolName: 'search', args: {} },
          },
          {
            type: 'tool-invocation',
            toolInvocation: {
              state: 'result',
              toolCallId: 'c3',
              toolName: 'search',
              args: {},
              result: { any: ['thing'] },
            },
          },
          { type: 'source', source: { sourceType: 'url', id: '1', url: 'https://x/y', title: 'Y' } },
          { type: 'source', source: { sourceType: 'url', id: '2', url: 'https://x/z' } },
          { type: 'text', text: 'answer' },
        ],
        experimental_attachments: [
          { name: 'a.txt', contentType: 'text/plain', url: 'data:text/plain,hi' },
          { url: 'https://x/b.png' },
        ],
      },
      { id: 'd1', role: 'data', content: '{}', parts: [] },
      userMessage('How do I configure PostgreSQL?'),
    ];
    const response = await post(
      server,
      'docs',
      {
        id: 'chat',
        data: { extra: true },
        messages: history,
        fp: 'anonymous',
        retrievalPageSize: 3,
        filter: null,
        threadId: null,
      },
      { key },
    );
    expect(response.status).toBe(200);
    expect(response.text).toMatch(/^f:/);
    expect(response.text).toContain('\nd:{"finishReason":"stop"');
  });

  it('accepts a v4 history holding a file part, as a real useChat conversation can', async () => {
    const result = await chat(server, key, {
      messages: [
        userMessage('Draw the architecture'),
        {
          id: 'a-file',
          role: 'assistant',
          content: '',
          parts: [{ type: 'file', mimeType: 'image/png', data: 'iVBORw0KGgo=' }],
        },
        userMessage('How do I check that the database is reachable?'),
      ],
      fp: 'anonymous',
    });
    expect(result.error).toBeUndefined();
    expect(result.finishReason).toBe('stop');
    expect(result.message?.content.length).toBeGreaterThan(20);
  });

  it('uses filters, context and currentPath in retrieval', async () => {
    const v1 = await chat(
      server,
      otherSiteKey,
      { messages: [userMessage('How do I rotate keys?')], fp: 'a', filter: { version: 'v1' } },
      'versions',
    );
    const v2 = await chat(
      server,
      otherSiteKey,
      { messages: [userMessage('How do I rotate keys?')], fp: 'a', filter: { version: 'v2' } },
      'versions',
    );
    const paths = (c: Collected) => {
      const tool = c.message?.parts?.find((p) => p.type === 'tool-invocation');
      if (tool?.type !== 'tool-invocation' || tool.toolInvocation.state !== 'result') return [];
      return (tool.toolInvocation.result as { results: { path: string }[] }).results.map((r) => r.path);
    };
    expect(paths(v1)).toEqual(['v1/rotate-keys']);
    expect(paths(v2)).toEqual(['v2/rotate-keys']);
    expect(v1.message?.content).toContain('legacy rotate command');
    expect(v2.message?.content).toContain('dashboard settings page');
    // A version the docs do not have is refused before anything is charged or stored, naming theirs;
    // a known one in another case or with spaces is the same version.
    const threads = async () =>
      Number(
        (
          await server.storage.db
            .selectFrom('threads')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await threads();
    const unknown = await post(
      server,
      'versions',
      { messages: [userMessage('How do I rotate keys?')], fp: 'a', filter: { version: 'v3' } },
      { key: otherSiteKey },
    );
    expect(unknown.status).toBe(400);
    const error = (JSON.parse(unknown.text) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('These docs have no version "v3"; their versions are v1, v2');
    expect(await threads()).toBe(before);
    const spelled = await chat(
      server,
      otherSiteKey,
      { messages: [userMessage('How do I rotate keys?')], fp: 'a', filter: { version: ' V2 ' } },
      'versions',
    );
    expect(paths(spelled)).toEqual(['v2/rotate-keys']);
    // Stored as the docs spell it, so the console's `version=v2` filter finds the conversation.
    const spelledThread = spelled.headers?.get('X-Thread-Id') ?? '';
    expect((await listThreadMessages(server.storage, spelledThread))[0]?.version).toBe('v2');
    // An unknown version is repeated as JSON (one line, however it is spelled) and at most 100 characters.
    const odd = await post(
      server,
      'versions',
      {
        messages: [userMessage('How do I rotate keys?')],
        fp: 'a',
        filter: { version: `v3\n"x${'y'.repeat(200)}` },
      },
      { key: otherSiteKey },
    );
    expect(odd.status).toBe(400);
    expect((JSON.parse(odd.text) as { error: { message: string } }).error.message).toBe(
      `These docs have no version ${JSON.stringify(`v3\n"x${'y'.repeat(95)}…`)}; their versions are v1, v2`,
    );

    const withContext = await post(
      server,
      'docs',
      {
        messages: [userMessage('What does this do?')],
        fp: 'anonymous',
        context: [
          { type: 'code', value: 'npm run docent -- eval ../shared/eval/claude-docs --json', path: 'x.sh' },
        ],
        currentPath: '/guides/cli',
      },
      { key },
    );
    expect(withContext.status).toBe(200);
    const toolCall = withContext.text.split('\n').find((line) => line.startsWith('9:'));
    expect(toolCall).toContain('eval ../shared/eval/claude-docs');
    expect(withContext.text).toContain('"path":"guides/cli"');
    // The question is stored with the page id its currentPath names, whatever its spelling; a path that
    // names no page of the site as it was sent.
    const storedPath = async (currentPath: string) => {
      const asked = await post(
        server,
        'docs',
        { messages: [userMessage('How do I ingest my docs?')], fp: 'anonymous', currentPath },
        { key },
      );
      const stored = await listThreadMessages(server.storage, asked.headers.get('X-Thread-Id') ?? '');
      return stored[0]?.currentPath;
    };
    expect(await storedPath('https://docs.example.com/guides/cli/')).toBe('guides/cli');
    expect(await storedPath('guides/CLI.mdx')).toBe('guides/cli');
    expect(await storedPath('/blog/launch')).toBe('/blog/launch');
  });

  it('answers a thank-you without a search: no tool call, only the reply', async () => {
    const thanks = await post(
      server,
      'docs',
      { messages: [userMessage('thanks!')], fp: 'anonymous' },
      { key },
    );
    expect(thanks.status).toBe(200);
    const lines = thanks.text.split('\n').filter(Boolean);
    expect(lines.filter((line) => /^[9ab]:/.test(line))).toEqual([]);
    const text = lines
      .filter((line) => line.startsWith('0:'))
      .map((line) => JSON.parse(line.slice(2)) as string);
    expect(text.join('')).toMatch(/^You're welcome!/);
  });

  it('serves the same route under /discovery', async () => {
    const result = await chat(
      server,
      key,
      { messages: [userMessage('What is Docent?')], fp: 'anonymous' },
      'docs',
      '/discovery',
    );
    expect(result.finishReason).toBe('stop');
    expect(result.headers?.get('Link')).toContain('/discovery/v2/assistant/docs/message');
  });

  it('rejects bad requests with a JSON error body and never a stream', async () => {
    const valid = { messages: [userMessage('hello')], fp: 'anonymous' };
    const cases: {
      label: string;
      status: number;
      code: string;
      body?: unknown;
      raw?: string;
      key?: string | null;
      domain?: string;
      contentType?: string;
    }[] = [
      { label: 'no key', status: 401, code: 'unauthorized', body: valid, key: null },
      { label: 'unknown key', status: 401, code: 'unauthorized', body: valid, key: 'svc_dsc_nope' },
      { label: 'admin-style key', status: 401, code: 'unauthorized', body: valid, key: 'svc_something' },
      { label: 'key of another site', status: 403, code: 'forbidden', body: valid, key: 'OTHER' },
      { label: 'unknown domain', status: 404, code: 'not_found', body: valid, domain: 'missing' },
      {
        label: 'not json',
        status: 415,
        code: 'unsupported_media_type',
        raw: 'hello',
        contentType: 'text/plain',
      },
      { label: 'malformed json', status: 400, code: 'invalid_request', raw: '{"fp":' },
      { label: 'body is an array', status: 400, code: 'invalid_request', body: [] },
      { label: 'missing fp', status: 400, code: 'invalid_request', body: { messages: valid.messages } },
      { label: 'empty fp', status: 400, code: 'invalid_request', body: { ...valid, fp: '' } },
      { label: 'no messages', status: 400, code: 'invalid_request', body: { fp: 'a', messages: [] } },
      {
        label: 'last message not from user',
        status: 400,
        code: 'invalid_request',
        body: { fp: 'a', messages: [{ id: 'x', role: 'assistant', content: 'x', parts: [] }] },
      },
      {
        label: 'blank question',
        status: 400,
        code: 'invalid_request',
        body: { fp: 'a', messages: [userMessage(' \n ')] },
      },
      {
        label: 'bad role',
        status: 400,
        code: 'invalid_request',
        body: { fp: 'a', messages: [{ ...userMessage('x'), role: 'robot' }] },
      },
      {
        label: 'parts missing',
        status: 400,
        code: 'invalid_request',
        body: { fp: 'a', messages: [{ id: 'x', role: 'user', content: 'x' }] },
      },
      {
        label: 'content not a string',
        status: 400,
        code: 'invalid_request',
        body: { fp: 'a', messages: [{ ...userMessage('x'), content: 5 }] },
      },
      {
        label: 'bad tool state',
        status: 400,
        code: 'invalid_request',
        body: {
          fp: 'a',
          messages: [
            {
              ...userMessage('x'),
              parts: [
                {
                  type: 'tool-invocation',
                  toolInvocation: { state: 'done', toolCallId: 'a', toolName: 'b', args: {} },
                },
              ],
            },
          ],
        },
      },
      {
        label: 'retrievalPageSize 0',
        status: 400,
        code: 'invalid_request',
        body: { ...valid, retrievalPageSize: 0 },
      },
      {
        label: 'retrievalPageSize 51',
        status: 400,
        code: 'invalid_request',
        body: { ...valid, retrievalPageSize: 51 },
      },
      {
        label: 'retrievalPageSize 2.5',
        status: 400,
        code: 'invalid_request',
        body: { ...valid, retrievalPageSize: 2.5 },
      },
      {
        label: 'retrievalPageSize string',
        status: 400,
        code: 'invalid_request',
        body: { ...valid, retrievalPageSize: '5' },
      },
      {
        label: 'currentPath 201 chars',
        status: 400,
        code: 'invalid_request',
        body: { ...valid, currentPath: `/${'a'.repeat(200)}` },
      },
      {
        label: 'filter wrong type',
        status: 400,
        code: 'invalid_request',
        body: { ...valid, filter: { version: 2 } },
      },
      {
        label: 'context bad type',
        status: 400,
        code: 'invalid_request',
        body: { ...valid, context: [{ type: 'image', value: 'x' }] },
      },
      // PostgreSQL cannot store U+0000 in text: this was a 500 there before bodies were checked for it.
      { label: 'NUL in fp', status: 400, code: 'invalid_request', body: { ...valid, fp: 'a\u0000b' } },
      {
        label: 'NUL in a question',
        status: 400,
        code: 'invalid_request',
        body: { fp: 'a', messages: [userMessage('How do I\u0000 rotate keys?')] },
      },
      {
        label: 'body too large',
        status: 413,
        code: 'payload_too_large',
        body: { ...valid, pad: 'x'.repeat(1_100_000) },
      },
    ];
    for (const c of cases) {
      const keyFor = c.key === null ? undefined : c.key === 'OTHER' ? otherKey : (c.key ?? key);
      const response = await post(server, c.domain ?? 'docs', c.body, {
        ...(keyFor ? { key: keyFor } : {}),
        ...(c.raw !== undefined ? { raw: c.raw } : {}),
        ...(c.contentType ? { contentType: c.contentType } : {}),
      });
      expect(response.status, c.label).toBe(c.status);
      expect(response.headers.get('Content-Type'), c.label).toMatch(/^application\/json/);
      const body = JSON.parse(response.text) as {
        error: { code: string; message: string; requestId: string };
      };
      expect(body.error.code, c.label).toBe(c.code);
      expect(body.error.message.length, c.label).toBeGreaterThan(0);
      expect(body.error.requestId, c.label).toBe(response.headers.get('X-Request-Id'));
    }
    const detailed = await post(server, 'docs', { ...valid, currentPath: 'x'.repeat(201) }, { key });
    expect(JSON.parse(detailed.text).error.details).toEqual([
      expect.objectContaining({ path: 'currentPath' }),
    ]);
    const nul = await post(server, 'docs', { ...valid, threadKey: 'k\u0000' }, { key });
    expect(JSON.parse(nul.text).error.details).toEqual([expect.objectContaining({ path: 'threadKey' })]);
  });

  it('stops generating when the client disconnects, keeps the partial answer, and goes on serving', async () => {
    const slowKey = await createApiKey(server.storage, {
      organizationId: (
        await server.storage.db
          .selectFrom('sites')
          .select('organization_id')
          .where('domain', '=', 'slow')
          .executeTakeFirstOrThrow()
      ).organization_id,
      siteId: (
        await server.storage.db
          .selectFrom('sites')
          .select('id')
          .where('domain', '=', 'slow')
          .executeTakeFirstOrThrow()
      ).id,
      kind: 'assistant',
    });
    const controller = new AbortController();
    const response = await fetch(`${server.baseUrl}/v1/assistant/slow/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${slowKey.key}` },
      body: JSON.stringify({
        messages: [userMessage('How do I run Docent on PostgreSQL with backups?')],
        fp: 'anonymous',
      }),
      signal: controller.signal,
    });
    const threadId = response.headers.get('X-Thread-Id') ?? '';
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('\n0:')) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      seen += decoder.decode(chunk.value);
    }
    controller.abort();
    let stored: Awaited<ReturnType<typeof listThreadMessages>> = [];
    for (let i = 0; i < 100 && stored.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      stored = await listThreadMessages(server.storage, threadId);
    }
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(stored[1]?.status).toBe('aborted');
    expect(stored[1]?.content.length).toBeGreaterThan(0);
    expect(stored[1]?.finishReason).toBe('unknown');
    // The answerer is deterministic: the same question run to the end gives the full answer, which the
    // aborted one must be a strict prefix of.
    const complete = await post(
      server,
      'slow',
      { messages: [userMessage('How do I run Docent on PostgreSQL with backups?')], fp: 'anonymous' },
      { key: slowKey.key },
    );
    const fullText = complete.text
      .split('\n')
      .filter((line) => line.startsWith('0:'))
      .map((line) => JSON.parse(line.slice(2)) as string)
      .join('');
    expect(fullText.startsWith(stored[1]?.content ?? 'x')).toBe(true);
    expect(stored[1]?.content.length).toBeLessThan(fullText.length);

    const after = await post(
      server,
      'docs',
      { messages: [userMessage('What is Docent?')], fp: 'anonymous' },
      { key },
    );
    expect(after.status).toBe(200);
  });
});

describe.each(dialects)('v1 long chats on %s', (dialect) => {
  let server: TestServer;
  let key = '';
  const prompts: { role: string }[][] = [];

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      modelProvider: () =>
        new MockLanguageModelV3({
          doStream: async ({ prompt }) => {
            prompts.push(prompt);
            return { stream: simulateReadableStream({ chunks: scriptedModelStream(['Use ', '/healthz.']) }) };
          },
        }),
    });
    key = (await bootstrapSite(server.storage, { domain: 'docs', docsDir: bundledDocs })).assistantKey;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers the 121st question of a chat, giving the model the latest MAX_HISTORY_MESSAGES of it', async () => {
    // AI SDK 4's useChat sends the whole chat with every question: 241 messages here (a cap of 200
    // stopped such a chat for good at its 101st question).
    const history = Array.from({ length: 120 }, (_, i) => [
      userMessage(`Question ${i}?`),
      {
        id: `a${i}`,
        role: 'assistant',
        content: `Answer ${i}.`,
        parts: [{ type: 'text', text: `Answer ${i}.` }],
      },
    ]).flat();
    const result = await chat(server, key, {
      fp: 'long-chat',
      messages: [...history, userMessage('How do I check that Docent is up?')],
    });
    expect(result.error).toBeUndefined();
    expect(result.message?.content).toBe('Use /healthz.');
    const conversation = (prompts.at(-1) ?? []).filter((m) => m.role !== 'system');
    // The latest 40 messages, less the answer they would open with: from a question on.
    expect(conversation).toHaveLength(MAX_HISTORY_MESSAGES - 1);
    expect(conversation[0]?.role).toBe('user');
    expect(JSON.stringify(conversation[0])).toContain('Question 101?');
    expect(JSON.stringify(conversation.at(-1))).toContain('How do I check that Docent is up?');
  });
});
