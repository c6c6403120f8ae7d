import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PAGE_PART_CHARS } from '../../agents/docs-mcp-server.ts';
import { reverseDnsHost, SERVER_CARD_SCHEMA } from '../../agents/server-card.ts';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { setOrganizationPlan } from '../../tenancy/organizations.ts';
import { upsertPlan } from '../../tenancy/plans.ts';
import { dialects } from '../../testing/databases.ts';
import { startTestServer, type TestServer } from '../../testing/server.ts';
import { smallDocs } from '../../testing/small-docs.ts';
import { versionedDocs } from '../../testing/versioned-docs.ts';
import { MAX_MCP_BATCH_MESSAGES } from './mcp.ts';
import { siteOfHost } from './mcp-server-card.ts';

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

describe.each(dialects)('MCP server over Streamable HTTP on %s', (dialect) => {
  let server: TestServer;
  let key = '';
  let otherKey = '';
  let brokeKey = '';
  let longKey = '';
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer(dialect);
    key = (await bootstrapSite(server.storage, { domain: 'versioned', docsDir: versionedDocs() }))
      .assistantKey;
    otherKey = (await bootstrapSite(server.storage, { domain: 'acme', docsDir: smallDocs() })).assistantKey;
    const broke = await bootstrapSite(server.storage, { domain: 'broke', docsDir: smallDocs() });
    brokeKey = broke.assistantKey;
    await upsertPlan(server.storage, 'no-credits', {
      name: 'no credits',
      monthlyCredits: 0,
      orgRequestsPerHour: 1_000,
      ipRequestsPerDay: 1_000,
    });
    await setOrganizationPlan(server.storage, broke.organization.id, 'no-credits');
    const long = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-mcp-long-'));
    const paragraph = (i: number) =>
      `Paragraph ${i} of the reference. ${'Every field is described here. '.repeat(20)}`;
    fs.writeFileSync(
      path.join(long, 'reference.md'),
      `# Reference\n\n${Array.from({ length: 200 }, (_, i) => paragraph(i)).join('\n\n')}\n`,
    );
    longKey = (await bootstrapSite(server.storage, { domain: 'long', docsDir: long })).assistantKey;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
  });

  async function connect(domain: string, bearer: string | null, slash = ''): Promise<Client> {
    const client = new Client({ name: 'docent-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp/${domain}${slash}`), {
      requestInit: bearer === null ? {} : { headers: { Authorization: `Bearer ${bearer}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it("allows in its CORS preflight every header the MCP SDK's client sends, so browser clients work", async () => {
    // The real client, with a fetch that records the request headers it sets.
    const sent = new Set<string>();
    const recording: typeof fetch = (input, init) => {
      for (const name of new Headers(init?.headers).keys()) sent.add(name.toLowerCase());
      return fetch(input, init);
    };
    const client = new Client({ name: 'docent-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp/versioned`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
      fetch: recording,
    });
    await client.connect(transport);
    clients.push(client);
    await client.listTools();
    expect(sent).toContain('mcp-protocol-version');
    // Headers a browser sends without asking (the CORS-safelisted ones) need no permission.
    const asked = [...sent].filter(
      (name) => !['accept', 'accept-language', 'content-language'].includes(name),
    );
    const preflight = await fetch(`${server.baseUrl}/mcp/versioned`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://agent.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': asked.join(','),
      },
    });
    expect(preflight.status).toBe(204);
    const allowed = (preflight.headers.get('Access-Control-Allow-Headers') ?? '').toLowerCase().split(/,\s*/);
    for (const name of asked) expect(allowed, name).toContain(name);
  });

  it('lists three read-only tools with descriptions and input schemas', async () => {
    const client = await connect('versioned', key);
    expect(client.getServerVersion()?.name).toBe('docent-versioned');
    // Stateless: no stream to send a tools/list_changed notification on, so none is promised.
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask_docs', 'get_page', 'search_docs']);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
    }
    const search = tools.find((t) => t.name === 'search_docs');
    expect(search?.inputSchema.required).toEqual(['query']);
    // The filters name the values this site's pages carry, so that an agent can choose one.
    const filters = search?.inputSchema.properties as Record<string, { description?: string }>;
    expect(filters.version?.description).toBe('Only this docs version: one of v1, v2');
    expect(filters.language?.description).toBe('Only this language (e.g. "en"); these docs label pages es');
  });

  it('search_docs finds sections with absolute links and honours filters', async () => {
    const client = await connect('versioned', key);
    const result = (await client.callTool({
      name: 'search_docs',
      arguments: { query: 'install the widget', limit: 3 },
    })) as ToolResult;
    expect(result.isError).toBeFalsy();
    const results = result.structuredContent?.results as { url: string; path: string; score: number }[];
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0]?.url.startsWith(`${server.baseUrl}/sites/versioned/pages/`)).toBe(true);
    expect(result.content[0]?.text).toContain(`URL: ${results[0]?.url}`);
    const v1 = (await client.callTool({
      name: 'search_docs',
      arguments: { query: 'install the widget', version: 'v1' },
    })) as ToolResult;
    const v1Results = v1.structuredContent?.results as { path: string; version?: string }[];
    const paths = v1Results.map((r) => r.path);
    expect(paths).toContain('v1/setup');
    expect(paths).not.toContain('v2/setup');
    // Each section says its version, so an agent can tell v1's setup from v2's.
    expect(v1Results.find((r) => r.path === 'v1/setup')?.version).toBe('v1');
    expect(v1.content[0]?.text).toContain('Path: v1/setup\nVersion: v1');
    const v3 = (await client.callTool({
      name: 'search_docs',
      arguments: { query: 'install the widget', version: 'v3' },
    })) as ToolResult;
    expect(v3.isError).toBe(true);
    expect(v3.content[0]?.text).toContain('These docs have no version "v3"; their versions are v1, v2');
    const none = (await client.callTool({
      name: 'search_docs',
      arguments: { query: 'zebrafish rotation password' },
    })) as ToolResult;
    expect((none.structuredContent?.results as { path: string }[]).map((r) => r.path)).not.toContain(
      'internal/secret',
    );
  });

  it('get_page returns the page as Markdown, and a tool error for an unknown page', async () => {
    const client = await connect('versioned', key);
    const page = (await client.callTool({
      name: 'get_page',
      arguments: { path: '/v2/tokens' },
    })) as ToolResult;
    expect(page.isError).toBeFalsy();
    expect(page.content[0]?.text).toBe(
      '# Access tokens\n\nCreate an access token with `acme tokens create`. Tokens expire after thirty days.\n',
    );
    const missing = (await client.callTool({
      name: 'get_page',
      arguments: { path: 'internal/secret' },
    })) as ToolResult;
    expect(missing.isError).toBe(true);
    expect(missing.content[0]?.text).toContain('No page');
  });

  it('get_page gives a long page in parts an agent can ask for one after the other', async () => {
    const client = await connect('long', longKey);
    const parts: string[] = [];
    let offset: number | undefined;
    for (let i = 0; i < 10; i++) {
      const result = (await client.callTool({
        name: 'get_page',
        arguments: offset === undefined ? { path: 'reference' } : { path: 'reference', offset },
      })) as ToolResult;
      expect(result.isError).toBeFalsy();
      const text = result.content[0]?.text ?? '';
      expect(text.length).toBeLessThanOrEqual(MAX_PAGE_PART_CHARS + 200);
      parts.push(text.replace(/\n\n\[Characters [^\]]*\]$/, ''));
      const next = /Call get_page again with offset (\d+) for the rest/.exec(text);
      if (next === null) break;
      offset = Number(next[1]);
    }
    expect(parts.length).toBeGreaterThan(1);
    const whole = parts.join('');
    expect(whole.length).toBeGreaterThan(MAX_PAGE_PART_CHARS * 2);
    expect(whole).toContain('Paragraph 0 of the reference.');
    expect(whole).toContain('Paragraph 199 of the reference.');
    const past = (await client.callTool({
      name: 'get_page',
      arguments: { path: 'reference', offset: 10_000_000 },
    })) as ToolResult;
    expect(past.isError).toBe(true);
    expect(past.content[0]?.text).toMatch(/offset 10000000 is past its end/);
  });

  it('refuses blank questions and queries and unknown arguments as tool errors, charging nothing', async () => {
    // A trailing slash on the server's address, as agents' configurations often have it.
    const client = await connect('versioned', key, '/');
    const charges = async () =>
      (
        await server.storage.db
          .selectFrom('credit_ledger')
          .select('id')
          .where('kind', '=', 'charge')
          .execute()
      ).length;
    const before = await charges();
    for (const [name, args] of [
      ['ask_docs', { question: ' \n\t ' }],
      ['search_docs', { query: '    ' }],
      ['get_page', { path: '  ' }],
      ['search_docs', { query: 'tokens', version: '  ' }],
      ['search_docs', { query: 'tokens', language: '' }],
      ['search_docs', { query: 'tokens', foo: 1 }],
      ['ask_docs', { question: 'How do I create an access token?', extra: true }],
    ] as const) {
      const result = (await client.callTool({ name, arguments: args })) as ToolResult;
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
    }
    expect(await charges()).toBe(before);
  });

  it('ask_docs answers with cited sources, charges a credit, and follows up in its thread', async () => {
    const client = await connect('versioned', key);
    const first = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'How do I create an access token?' },
    })) as ToolResult;
    expect(first.isError).toBeFalsy();
    const answer = first.structuredContent as {
      answer: string;
      sources: { id: string; url: string }[];
      threadId: string;
      threadKey?: string;
    };
    expect(answer.answer).toMatch(/acme tokens create/);
    expect(answer.sources.length).toBeGreaterThan(0);
    expect(first.content[0]?.text).toContain(`[${answer.sources[0]?.id}] `);
    expect(answer.threadKey).toBeTruthy();
    // In the text too: many clients show a model only the text.
    expect(first.content[0]?.text).toContain(
      `To follow up, call ask_docs again with threadId "${answer.threadId}" and threadKey "${answer.threadKey}".`,
    );
    const follow = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'When do they expire?', threadId: answer.threadId, threadKey: answer.threadKey },
    })) as ToolResult;
    expect(follow.isError).toBeFalsy();
    expect((follow.structuredContent as { threadId: string }).threadId).toBe(answer.threadId);
    // A thread id alone continues nothing: every MCP caller has the same fingerprint.
    const keyless = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'And the refresh tokens?', threadId: answer.threadId },
    })) as ToolResult;
    expect(keyless.isError).toBe(true);
    expect(keyless.content[0]?.text).toContain('threadKey');
    // Nor through the assistant endpoint, claiming MCP's shared fingerprint.
    const throughV2 = await fetch(`${server.baseUrl}/v2/assistant/versioned/message`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        fp: 'mcp',
        threadId: answer.threadId,
        messages: [{ id: 'm9', role: 'user', parts: [{ type: 'text', text: 'What did I ask before?' }] }],
      }),
    });
    expect(throughV2.status).toBe(404);
    expect(((await throughV2.json()) as { error: { code: string } }).error.code).toBe('thread_not_found');
    const messages = await server.storage.db
      .selectFrom('thread_messages')
      .select(['role'])
      .where('thread_id', '=', answer.threadId)
      .execute();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const charges = await server.storage.db
      .selectFrom('credit_ledger')
      .select('kind')
      .where('kind', '=', 'charge')
      .execute();
    expect(charges.length).toBeGreaterThanOrEqual(2);
    const wrongThread = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'And then?', threadId: answer.threadId, threadKey: 'wrong' },
    })) as ToolResult;
    expect(wrongThread.isError).toBe(true);
    // Blank or padded thread arguments are trimmed like the others, and a key without its id is refused:
    // neither starts a new thread (and spends a credit) in place of the follow-up the agent meant.
    const before = (await server.storage.db.selectFrom('threads').select('id').execute()).length;
    for (const args of [
      { threadId: '', threadKey: answer.threadKey },
      { threadId: '   ' },
      { threadKey: answer.threadKey },
    ]) {
      const refused = (await client.callTool({
        name: 'ask_docs',
        arguments: { question: 'And then?', ...args },
      })) as ToolResult;
      expect(refused.isError, JSON.stringify(args)).toBe(true);
    }
    expect((await server.storage.db.selectFrom('threads').select('id').execute()).length).toBe(before);
    const padded = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'And then?', threadId: ` ${answer.threadId} `, threadKey: answer.threadKey },
    })) as ToolResult;
    expect(padded.isError).toBeFalsy();
    expect((padded.structuredContent as { threadId: string }).threadId).toBe(answer.threadId);
  });

  it('tells an agent when the organization is out of credits, as a tool error', async () => {
    const client = await connect('broke', brokeKey);
    const result = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'Billing?' },
    })) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/credit/i);
  });

  it('refuses a missing or foreign key before any MCP message, and serves a public site without one', async () => {
    await expect(connect('versioned', null)).rejects.toThrow();
    await expect(connect('versioned', otherKey)).rejects.toThrow();
    const raw = await fetch(`${server.baseUrl}/mcp/versioned`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(((await raw.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const admin = await fetch(`${server.baseUrl}/mcp/acme`, { method: 'GET' });
    expect(admin.status).toBe(405);
    // Every method but POST (and a preflight) is told the same, with the same Allow.
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
      const refused = await fetch(`${server.baseUrl}/mcp/acme`, { method });
      expect([method, refused.status, refused.headers.get('allow')]).toEqual([method, 405, 'POST, OPTIONS']);
    }
    const acme = await server.storage.db
      .selectFrom('sites')
      .select('id')
      .where('domain', '=', 'acme')
      .executeTakeFirstOrThrow();
    await server.storage.db.updateTable('sites').set({ public: 1 }).where('id', '=', acme.id).execute();
    const open = await connect('acme', null);
    const found = (await open.callTool({
      name: 'search_docs',
      arguments: { query: 'rotate keys' },
    })) as ToolResult;
    expect((found.structuredContent?.results as { path: string }[])[0]?.path).toBe('keys');
  });

  /** A raw MCP request to the versioned site, as a client that does not use the SDK sends it. */
  const send = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}/mcp/versioned`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...headers,
      },
      body,
    });

  it('answers bad MCP bodies with a 4xx, never a 5xx', async () => {
    const notJson = await send('{"jsonrpc":');
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the body is not JSON' },
    });
    expect((await send('x'.repeat(70_000))).status).toBe(413);
    expect(
      (await send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { Accept: 'text/html' })).status,
    ).toBe(406);
    expect(
      (await send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'Content-Type': 'text/plain' })).status,
    ).toBe(415);
    // JSON that is no JSON-RPC message, sent as text: the media type is what is wrong (it was a 400).
    const plain = await send('{}', { 'Content-Type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
    for (const body of [
      '[]',
      '{}',
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_page","arguments":{"path":7}}}',
    ]) {
      const response = await send(body);
      expect(response.status, body).toBeLessThan(500);
    }
  });

  /** The JSON-RPC reply to one raw message (a batch's replies as an array). */
  const reply = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await send(JSON.stringify(body), headers);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const call = (params: unknown) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params });

  it('answers params of the wrong shape -32602 naming the field, never -32603 (the client’s mistake)', async () => {
    for (const [message, field] of [
      [
        { jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: 42 } },
        'params.protocolVersion',
      ],
      [{ jsonrpc: '2.0', id: 7, method: 'initialize' }, 'params'],
      [call(undefined), 'params'],
      [call({}), 'params.name'],
      [call({ name: 5 }), 'params.name'],
      [call({ name: 'search_docs', arguments: null }), 'params.arguments'],
      [call({ name: 'search_docs', arguments: ['rotate keys'] }), 'params.arguments'],
      [{ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 5 } }, 'params.cursor'],
    ] as const) {
      const { status, body } = await reply(message);
      expect(status, JSON.stringify(message)).toBe(200);
      expect(body.id).toBe(7);
      const error = body.error as { code: number; message: string };
      expect(error.code, JSON.stringify(message)).toBe(-32602);
      expect(error.message).toContain(`${field}:`);
    }
    // In a batch, only the faulty message is refused.
    const { body } = await reply([call({ name: 5 }), { jsonrpc: '2.0', id: 8, method: 'ping' }], {
      'MCP-Protocol-Version': '2025-03-26',
    });
    expect(body).toEqual([
      expect.objectContaining({ id: 7, error: expect.objectContaining({ code: -32602 }) }),
      { jsonrpc: '2.0', id: 8, result: {} },
    ]);
  });

  it('serves a task-augmented tools/call as a plain one: this server declares no tasks capability', async () => {
    const search = { name: 'search_docs', arguments: { query: 'access token', limit: 1 } };
    const plain = await reply(call(search));
    const tasked = await reply(call({ ...search, task: { ttl: 60_000 } }));
    const result = tasked.body.result as ToolResult;
    expect(result.isError, JSON.stringify(tasked.body)).toBeFalsy();
    expect((result.structuredContent?.results as unknown[]).length).toBe(1);
    expect(tasked.body).toEqual(plain.body);
  });

  it('answers JSON that is not JSON-RPC -32600 Invalid Request, with the message’s id when it has one', async () => {
    for (const [message, id] of [
      [{ jsonrpc: '1.0', id: 3, method: 'ping' }, 3],
      [{ id: 'a', method: 'ping' }, 'a'],
      [{ jsonrpc: '2.0', id: 3, method: 5 }, 3],
      [{ jsonrpc: '2.0', id: {}, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: 3, method: 'tools/list', params: [1] }, 3],
      [null, null],
      ['ping', null],
      [[{ jsonrpc: '2.0', id: 1, method: 'ping' }, 42], null],
    ] as const) {
      const { status, body } = await reply(message, { 'MCP-Protocol-Version': '2025-03-26' });
      expect(status, JSON.stringify(message)).toBe(400);
      expect(body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
    }
  });

  it('refuses a batch with two requests under one id or an initialize, and answers a batch always as an array', async () => {
    const v = { 'MCP-Protocol-Version': '2025-03-26' };
    const ask = { name: 'ask_docs', arguments: { question: 'How do I create an access token?' } };
    const before = await server.storage.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    // The transport answered the ping alone, not as an array, and left ask_docs running and charged.
    const duplicate = await reply([call(ask), { jsonrpc: '2.0', id: 7, method: 'ping' }], v);
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining('id 7') },
    });
    const after = await server.storage.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    // 1 and "1" are different ids.
    expect(
      (
        await reply(
          [
            { jsonrpc: '2.0', id: 1, method: 'ping' },
            { jsonrpc: '2.0', id: '1', method: 'ping' },
          ],
          v,
        )
      ).status,
    ).toBe(200);
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const batched = await reply([initialize, { jsonrpc: '2.0', method: 'notifications/initialized' }], v);
    expect(batched.status).toBe(400);
    expect(batched.body).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('initialize may not be sent in a batch') },
    });
    for (const batch of [
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ],
    ]) {
      const one = await reply(batch, v);
      expect(one.status).toBe(200);
      expect(one.body).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    }
  });

  it('serves any Accept that admits JSON (curl’s */*, application/json alone, none), and 406 one that does not', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const accept of ['*/*', 'application/json', 'application/*', 'text/html, application/json;q=0.5']) {
      const response = await send(ping, { Accept: accept });
      expect(response.status, accept).toBe(200);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    }
    const none = await fetch(`${server.baseUrl}/mcp/versioned`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: '' },
      body: ping,
    });
    expect(none.status).toBe(200);
    for (const accept of ['text/event-stream', 'text/html', 'application/json;q=0']) {
      const refused = await send(ping, { Accept: accept });
      expect(refused.status, accept).toBe(406);
      expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32000);
    }
  });

  it(`answers every ask_docs of a batch under its own request id, and refuses batches past ${MAX_MCP_BATCH_MESSAGES}`, async () => {
    const ask = { name: 'ask_docs', arguments: { question: 'How do I create an access token?' } };
    const calls = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: ask }));
    // Batches are of the 2025-03-26 revision: newer ones have none.
    const batch = (n: number) => send(JSON.stringify(calls(n)), { 'MCP-Protocol-Version': '2025-03-26' });
    const answered = await batch(3);
    expect(answered.status).toBe(200);
    const results = (await answered.json()) as { result: ToolResult }[];
    expect(results).toHaveLength(3);
    for (const { result } of results) {
      expect(result.isError, result.content[0]?.text).toBeFalsy();
      expect(result.content[0]?.text).toMatch(/acme tokens create/);
    }
    const requestId = answered.headers.get('X-Request-Id') ?? '';
    const charged = await server.storage.db
      .selectFrom('credit_ledger')
      .select('request_id')
      .where('kind', '=', 'charge')
      .where('request_id', 'like', `${requestId}%`)
      .execute();
    expect(charged.map((c) => c.request_id).sort()).toEqual([requestId, `${requestId}.2`, `${requestId}.3`]);

    for (const n of [0, MAX_MCP_BATCH_MESSAGES + 1]) {
      const refused = await batch(n);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
        `1 to ${MAX_MCP_BATCH_MESSAGES} messages`,
      );
    }
  });

  it('names the server card in reverse-DNS form after a DNS host, and after an address as it is', () => {
    expect(reverseDnsHost('docs-ai.example.com')).toBe('com.example.docs-ai');
    expect(reverseDnsHost('127.0.0.1')).toBe('127.0.0.1');
    expect(reverseDnsHost('[::1]')).toBe('::1');
    expect(reverseDnsHost('localhost')).toBe('localhost');
  });

  it('publishes a server card naming the endpoint and its key header', async () => {
    for (const path of ['/mcp/versioned/server-card', '/sites/versioned/.well-known/mcp/server-card.json']) {
      const response = await fetch(`${server.baseUrl}${path}`);
      expect(response.status, path).toBe(200);
      const card = (await response.json()) as {
        $schema: string;
        name: string;
        remotes: { type: string; url: string; headers: { name: string; isRequired: boolean }[] }[];
      };
      expect(card.$schema).toBe(SERVER_CARD_SCHEMA);
      // The test server is on 127.0.0.1: an address is no DNS name to reverse.
      expect(card.name).toBe('127.0.0.1/versioned');
      expect(card.remotes).toEqual([
        expect.objectContaining({
          type: 'streamable-http',
          url: `${server.baseUrl}/mcp/versioned`,
          headers: [expect.objectContaining({ name: 'Authorization', isRequired: true })],
        }),
      ]);
    }
    expect((await fetch(`${server.baseUrl}/mcp/nowhere/server-card`)).status).toBe(404);
    // At the root of a host only when it is the site's own host under DOCENT_PUBLIC_URL (none here): a
    // host spelled like a site, such as localhost, is not the site's, whatever its tenant named it.
    await bootstrapSite(server.storage, { domain: 'localhost', docsDir: smallDocs() });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = http.get(
        `${server?.baseUrl}/.well-known/mcp/server-card.json`,
        { headers: { Host: `localhost:${new URL(server?.baseUrl ?? '').port}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode);
        },
      );
      request.on('error', reject);
    });
    expect(status).toBe(404);
  });

  it('serves the root server card on a site’s own host under Docent’s address only', () => {
    const own = 'https://docs-ai.example.com';
    expect(siteOfHost('acme.docs-ai.example.com', own)).toBe('acme');
    expect(siteOfHost('ACME.Docs-AI.example.com', own)).toBe('acme');
    expect(siteOfHost('docs-ai.example.com', own)).toBeNull();
    expect(siteOfHost('a.b.docs-ai.example.com', own)).toBeNull();
    expect(siteOfHost('acme.evil-docs-ai.example.com', own)).toBeNull();
    expect(siteOfHost('localhost', own)).toBeNull();
    expect(siteOfHost('localhost', null)).toBeNull();
    expect(siteOfHost('acme', null)).toBeNull();
  });
});
