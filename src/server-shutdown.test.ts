import { getEventListeners } from 'node:events';
import path from 'node:path';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_STOPPED_MESSAGE } from './assistant/answer-stream.ts';
import { BuiltinAnswerer } from './assistant/builtin-answerer.ts';
import { listThreadMessages } from './assistant/threads.ts';
import { askBody } from './limits/limits-fixtures.ts';
import { openStorage } from './storage/database.ts';
import { bootstrapSite } from './tenancy/bootstrap-site.ts';
import { createTestDatabase, dialects } from './testing/databases.ts';
import { scriptedModelStream } from './testing/model-streams.ts';
import { repoRoot } from './testing/paths.ts';
import { startTestServer, type TestServer } from './testing/server.ts';
import { createTestApp } from './testing/test-app.ts';

const bundledDocs = path.join(repoRoot, 'docs');

/** The server's stored messages, read through a handle of its own: the server's closes with it. */
async function storedAnswer(server: TestServer, threadId: string) {
  const storage = await openStorage(server.databaseUrl);
  try {
    return await listThreadMessages(storage, threadId);
  } finally {
    await storage.close();
  }
}

const slowQuestion = 'How do I run Docent on PostgreSQL with backups?';

/** Starts a slow answer and reads it until its first words have arrived. */
async function startAnswer(server: TestServer, key: string, wire: 'v1' | 'v2' = 'v1') {
  const body =
    wire === 'v1'
      ? askBody(slowQuestion)
      : {
          fp: 'anonymous',
          messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: slowQuestion }] }],
        };
  const response = await fetch(`${server.baseUrl}/${wire}/assistant/docs/message`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const threadId = response.headers.get('X-Thread-Id') ?? '';
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!(wire === 'v1' ? /(^|\n)0:/ : /"type":"text-delta"/).test(text)) {
    const chunk = await reader?.read();
    if (!chunk || chunk.done) throw new Error(`ended early: ${text}`);
    text += decoder.decode(chunk.value);
  }
  const rest = (async () => {
    for (;;) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) return text;
      text += decoder.decode(chunk.value);
    }
  })();
  return { threadId, rest };
}

describe.each(dialects)('graceful shutdown on %s', (dialect) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  const start = async () => {
    // 300 ms between pieces: an answer takes seconds, long enough to shut down in the middle of one.
    server = await startTestServer(dialect, {
      modelProvider: ({ sources, context }) => new BuiltinAnswerer({ sources, context, deltaDelayMs: 300 }),
    });
    const { assistantKey } = await bootstrapSite(server.storage, { domain: 'docs', docsDir: bundledDocs });
    return { server, key: assistantKey };
  };

  it('stops accepting at once and lets an answer in progress finish within the grace period', async () => {
    const { server, key } = await start();
    const answer = await startAnswer(server, key);
    const closed = server.close({ graceMs: 60_000 });
    // No new connections once the shutdown has begun.
    await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
    const text = await answer.rest;
    expect(text).toMatch(/(^|\n)d:\{"finishReason":"stop"/);
    await closed;
    const stored = await storedAnswer(server, answer.threadId);
    expect(stored.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
  });

  it('ends the answers still running when the grace period is over, storing them aborted', async () => {
    const { server, key } = await start();
    const answer = await startAnswer(server, key);
    await server.close({ graceMs: 100 });
    // The reader's stream ended without a finish part, with an error saying why, as its last part.
    const text = await answer.rest;
    expect(text).not.toMatch(/(^|\n)d:/);
    expect(text.trimEnd().split('\n').at(-1)).toBe(`3:${JSON.stringify(SERVER_STOPPED_MESSAGE)}`);
    const stored = await storedAnswer(server, answer.threadId);
    expect(stored.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'aborted'],
    ]);
    const words = stored[1]?.content ?? '';
    expect(words.length).toBeGreaterThan(0);
    // What the reader saw is what was stored.
    expect(text).toContain(JSON.stringify(words.slice(0, 10)).slice(1, -1));
    // Nothing left in flight: the shutdown settled its own answers.
    const storage = await openStorage(server.databaseUrl);
    try {
      expect(await storage.db.selectFrom('answers_in_flight').selectAll().execute()).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it('tells a v2 reader still there why the answer ended, in an error chunk before [DONE]', async () => {
    const { server, key } = await start();
    const answer = await startAnswer(server, key, 'v2');
    await server.close({ graceMs: 100 });
    const events = (await answer.rest).split('\n\n').filter((event) => event !== '');
    expect(events.slice(-2)).toEqual([
      `data: ${JSON.stringify({ type: 'error', errorText: SERVER_STOPPED_MESSAGE })}`,
      'data: [DONE]',
    ]);
    expect(events.some((event) => event.includes('"type":"finish"'))).toBe(false);
  });

  it('waits for a v2 answer its reader left (kept for resuming), and stores it aborted after the grace period', async () => {
    const { server, key } = await start();
    const leaving = new AbortController();
    const response = await fetch(`${server.baseUrl}/v2/assistant/docs/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify({
        id: 'chat-shutdown',
        fp: 'anonymous',
        messages: [
          {
            id: 'u1',
            role: 'user',
            parts: [{ type: 'text', text: 'How do I run Docent on PostgreSQL with backups?' }],
          },
        ],
      }),
      signal: leaving.signal,
    });
    expect(response.status).toBe(200);
    const threadId = response.headers.get('X-Thread-Id') ?? '';
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"type":"text-delta"')) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) throw new Error(`ended early: ${text}`);
      text += decoder.decode(chunk.value);
    }
    // The reader leaves; the answer goes on in the background so that a reload can resume it.
    leaving.abort();
    await reader?.cancel().catch(() => {});
    await server.close({ graceMs: 300 });
    const stored = await storedAnswer(server, threadId);
    expect(stored.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'aborted'],
    ]);
    const storage = await openStorage(server.databaseUrl);
    try {
      expect(await storage.db.selectFrom('answers_in_flight').selectAll().execute()).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});

describe('readiness while draining', () => {
  it('answers 503 and closes each connection after its response', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      let draining = false;
      const app = createTestApp(database.storage, {
        shutdown: { draining: () => draining, stopping: new AbortController().signal },
      });
      const before = await app.request('/readyz');
      expect(before.status).toBe(200);
      expect(before.headers.get('connection')).toBeNull();
      draining = true;
      const during = await app.request('/readyz');
      expect(during.status).toBe(503);
      expect(((await during.json()) as { error: { code: string } }).error.code).toBe('unavailable');
      expect(during.headers.get('connection')).toBe('close');
      expect((await app.request('/healthz')).status).toBe(200);
    } finally {
      await database.drop();
    }
  });

  it('leaves no listener on the shutdown signal for the answers it has served', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      const stopping = new AbortController();
      const app = createTestApp(database.storage, {
        shutdown: { draining: () => false, stopping: stopping.signal },
        // A provider's model: it is handed an abort signal (the built-in answerer is not).
        modelProvider: () =>
          new MockLanguageModelV3({
            doStream: async () => ({
              stream: simulateReadableStream({ chunks: scriptedModelStream(['Docent answers [1].']) }),
            }),
          }),
      });
      const { assistantKey } = await bootstrapSite(database.storage, {
        domain: 'docs',
        docsDir: bundledDocs,
      });
      for (let i = 0; i < 12; i++) {
        const response = await app.request('/v1/assistant/docs/message', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${assistantKey}` },
          body: JSON.stringify(askBody('How do I install Docent?')),
        });
        expect(await response.text()).toContain('0:"Docent answers [1]."');
      }
      // One listener per answer would stay until shutdown, and each new one walks the list: one serves
      // them all (reader-gone.ts; its test checks that nothing else per answer stays on the signal).
      expect(getEventListeners(stopping.signal, 'abort').length).toBeLessThanOrEqual(1);
    } finally {
      await database.drop();
    }
  });
});
