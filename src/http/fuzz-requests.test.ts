/**
 * Fuzzing the HTTP API (fast-check) against a real server on each database: generated bodies for the
 * v1 and v2 assistant endpoints, answer feedback, search/page/context, the MCP endpoint and the admin API. Valid bodies,
 * valid bodies with mutated fields, hostile values in place of the body, and raw non-JSON bytes.
 *
 * The only property: every response is a success (a stream read to its regular end) or a 4xx with the
 * standard JSON error; never a 5xx, never a response that takes longer than REQUEST_TIMEOUT_MS; and the
 * server still answers /healthz afterwards. FUZZ_SEED replays a run (see README, "Fuzzing").
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONTEXT_TOKENS } from '../agents/context-pack.ts';
import { MAX_SEARCH_PAGE_SIZE } from '../agents/search-docs.ts';
import { MAX_RETRIEVAL_PAGE_SIZE } from '../assistant/request-schema.ts';
import { createApiKey } from '../tenancy/api-keys.ts';
import { bootstrapSite } from '../tenancy/bootstrap-site.ts';
import { setOrganizationPlan } from '../tenancy/organizations.ts';
import { upsertPlan } from '../tenancy/plans.ts';
import { createSite } from '../tenancy/sites.ts';
import { dialects } from '../testing/databases.ts';
import {
  FuzzBody,
  fuzzBodies,
  fuzzParameters,
  fuzzSeed,
  hostileString,
  PROTOTYPE_NAMES,
  withShrinkBudget,
} from '../testing/fuzz-arbitraries.ts';
import { startTestServer, type TestServer } from '../testing/server.ts';
import { smallDocs } from '../testing/small-docs.ts';

/** A response (its whole body, for a stream) slower than this counts as a hang. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Per property: room for shrinking a counterexample against the live server. */
const PROPERTY_TIMEOUT_MS = 180_000;

const SITE = 'fuzz';
/** The admin API's target: a site of the same organization that the other endpoints never ask. */
const ADMIN_SITE = 'fuzz-admin';

interface Fixture {
  server: TestServer;
  assistantKey: string;
  adminKey: string;
  threadId: string;
  threadKey: string;
  /** The fixture thread's answer, so generated votes sometimes name one that exists. */
  messageId: string;
}

// ---------------------------------------------------------------------------------------------------
// Valid bodies, per endpoint

const WORDS = ['rotate', 'API', 'keys', 'billing', 'invoice', 'email', 'hour', 'month', 'command', 'acme'];
const question = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 })
      .map((w) => `${w.join(' ')}?`),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }) },
);
const ident = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
);
const label = fc.oneof(fc.constantFrom('en', 'fr', 'v1', 'v2', ...PROTOTYPE_NAMES), hostileString);
const filter = fc.record({ version: label, language: label }, { requiredKeys: [] });
const pagePath = fc.oneof(
  fc.constantFrom('keys', 'billing', '/keys', 'keys.mdx', '/billing.mdx', 'missing', 'keys#anchor', ''),
  hostileString,
);
const isoDate = fc
  .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
  .map((d) => d.toISOString());
const json = fc.jsonValue({ maxDepth: 2 });

const contractFields = (f: () => Fixture) => ({
  fp: fc.oneof(fc.constant('anonymous'), ident),
  threadId: fc.option(
    fc.oneof(
      fc.constant(null).map(() => f().threadId),
      ident,
    ),
  ),
  threadKey: fc.option(
    fc.oneof(
      fc.constant(null).map(() => f().threadKey),
      ident,
    ),
  ),
  retrievalPageSize: fc.integer({ min: 1, max: MAX_RETRIEVAL_PAGE_SIZE }),
  filter: fc.option(filter),
  context: fc.array(
    fc.record(
      {
        type: fc.constantFrom('code', 'textSelection'),
        value: question,
        path: pagePath,
        elementId: ident,
      },
      { requiredKeys: ['type', 'value'] },
    ),
    { maxLength: 3 },
  ),
  currentPath: pagePath,
});

const v1Part = fc.oneof(
  question.map((text) => ({ type: 'text', text })),
  question.map((reasoning) => ({
    type: 'reasoning',
    reasoning,
    details: [{ type: 'text', text: reasoning }],
  })),
  fc.constant({ type: 'step-start' }),
  fc.record({
    type: fc.constant('source'),
    source: fc.record({ sourceType: fc.constant('url'), id: ident, url: fc.webUrl(), title: question }),
  }),
  fc.record({
    type: fc.constant('tool-invocation'),
    toolInvocation: fc.record({
      state: fc.constantFrom('partial-call', 'call', 'result'),
      toolCallId: ident,
      toolName: fc.constantFrom('search', ...PROTOTYPE_NAMES),
      args: json,
      result: json,
    }),
  }),
  fc.record({ type: fc.constant('file'), mimeType: fc.constantFrom('image/png', 'text/plain'), data: ident }),
);

const v1Message = (role: fc.Arbitrary<string>) =>
  fc.record(
    {
      id: ident,
      role,
      content: question,
      parts: fc.array(v1Part, { maxLength: 3 }),
      createdAt: isoDate,
      annotations: fc.array(json, { maxLength: 2 }),
      experimental_attachments: fc.array(
        fc.record({ name: ident, contentType: fc.constant('image/png'), url: fc.webUrl() }),
        { maxLength: 1 },
      ),
    },
    { requiredKeys: ['id', 'role', 'content', 'parts'] },
  );

const v1UserMessage = fc.tuple(v1Message(fc.constant('user')), question).map(([message, text]) => ({
  ...message,
  content: text,
  parts: [...message.parts, { type: 'text', text }],
}));

const v1Body = (f: () => Fixture) =>
  fc.record(
    {
      ...contractFields(f),
      messages: fc
        .tuple(
          fc.array(v1Message(fc.constantFrom('user', 'assistant', 'system', 'data')), { maxLength: 3 }),
          v1UserMessage,
        )
        .map(([history, last]) => [...history, last]),
    },
    { requiredKeys: ['fp', 'messages'] },
  );

const v2Part = fc.oneof(
  question.map((text) => ({ type: 'text', text })),
  question.map((text) => ({ type: 'reasoning', text })),
  fc.constant({ type: 'step-start' }),
  fc.record({
    type: fc.constantFrom('tool-search', 'dynamic-tool', 'tool-__proto__'),
    toolCallId: ident,
    state: fc.constantFrom('input-streaming', 'input-available', 'output-available', 'output-error'),
    input: json,
    output: json,
  }),
  fc.record({ type: fc.constantFrom('data-x', 'data-constructor'), data: json }),
  fc.record({ type: fc.constant('source-url'), sourceId: ident, url: fc.webUrl() }),
  fc.record({ type: fc.constant('file'), mediaType: fc.constant('image/png'), url: fc.webUrl() }),
  fc.record({ type: fc.constantFrom('custom', 'reasoning-file', 'x'.repeat(200)), value: json }),
);

const v2Message = (role: fc.Arbitrary<string>) =>
  fc.record(
    { id: ident, role, metadata: json, parts: fc.array(v2Part, { maxLength: 3 }) },
    { requiredKeys: ['id', 'role', 'parts'] },
  );

const v2Body = (f: () => Fixture) =>
  fc.record(
    {
      ...contractFields(f),
      id: ident,
      trigger: fc.constantFrom('submit-message', 'regenerate-message'),
      messageId: ident,
      messages: fc
        .tuple(
          fc.array(v2Message(fc.constantFrom('user', 'assistant', 'system')), { maxLength: 3 }),
          v2Message(fc.constant('user')),
          question,
        )
        .map(([history, last, text]) => [
          ...history,
          { ...last, parts: [...last.parts, { type: 'text', text }] },
        ]),
    },
    { requiredKeys: ['fp', 'messages'] },
  );

const feedbackBody = (f: () => Fixture) =>
  fc.record(
    {
      fp: fc.oneof(fc.constant('anonymous'), ident),
      threadId: fc.oneof(
        fc.constant(null).map(() => f().threadId),
        ident,
      ),
      threadKey: fc.option(
        fc.oneof(
          fc.constant(null).map(() => f().threadKey),
          ident,
        ),
      ),
      messageId: fc.oneof(
        fc.constant(null).map(() => f().messageId),
        ident,
      ),
      rating: fc.constantFrom('up', 'down'),
      comment: fc.option(fc.oneof(question, hostileString)),
    },
    { requiredKeys: ['fp', 'threadId', 'messageId', 'rating'] },
  );

const searchBody = fc.record(
  {
    query: question,
    pageSize: fc.integer({ min: 1, max: MAX_SEARCH_PAGE_SIZE }),
    scoreThreshold: fc.double({ min: 0, max: 1, noNaN: true }),
    filter: fc.option(filter),
  },
  { requiredKeys: ['query'] },
);
const pageBody = fc.record({ path: pagePath });
const contextBody = fc.record(
  {
    query: question,
    tokenBudget: fc.integer({ min: 1, max: MAX_CONTEXT_TOKENS }),
    filter: fc.option(filter),
  },
  { requiredKeys: ['query'] },
);

const mcpToolCall = fc.record({
  // Not always a string: the SDK alone answered a wrong-typed name or arguments -32603.
  name: fc.oneof(
    {
      weight: 9,
      arbitrary: fc.constantFrom('search_docs', 'get_page', 'ask_docs', 'nope', ...PROTOTYPE_NAMES),
    },
    { weight: 1, arbitrary: json },
  ),
  arguments: fc.record(
    {
      query: question,
      path: pagePath,
      question,
      threadId: ident,
      threadKey: ident,
      version: label,
      language: label,
      limit: fc.integer({ min: -1, max: 100 }),
    },
    { requiredKeys: [] },
  ),
});
const mcpMessage = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.nat(), ident),
    method: fc.constant('tools/call'),
    params: mcpToolCall,
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.nat(), ident),
    method: fc.constant('initialize'),
    params: fc.record({
      protocolVersion: fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01'),
      capabilities: fc.constant({}),
      clientInfo: fc.record({ name: ident, version: fc.constant('1.0.0') }),
    }),
  }),
  fc.record(
    {
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.nat(), ident, fc.constant(null)),
      method: fc.constantFrom(
        'tools/list',
        'ping',
        'notifications/initialized',
        'notifications/cancelled',
        'resources/list',
        'prompts/list',
        'logging/setLevel',
        'completion/complete',
        ...PROTOTYPE_NAMES,
      ),
      params: fc.oneof(
        fc.dictionary(ident, json, { maxKeys: 2 }),
        // The fields the SDK parses inside its handlers (its -32603 before the guard), of any type.
        fc.record({ cursor: json, task: json, level: json }, { requiredKeys: [] }),
      ),
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  ),
);
const mcpBody = fc.oneof(
  { weight: 5, arbitrary: mcpMessage },
  { weight: 1, arbitrary: fc.array(mcpMessage, { minLength: 1, maxLength: 3 }) },
);

const domainLike = fc.oneof(
  fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,14}[a-z0-9])?$/),
  fc.constantFrom(SITE, ADMIN_SITE, 'constructor', 'prototype', 'tostring', 'valueof', 'Not A Domain'),
  hostileString,
);
const origin = fc.oneof(
  fc.constantFrom('https://docs.example.com', 'http://localhost:3000', 'null', 'https://a.example/path', '*'),
  hostileString,
);
const baseUrl = fc.oneof(
  fc.constantFrom(
    null,
    'https://docs.example.com',
    'http://x.example/a/',
    'javascript:alert(1)',
    'data:text/html,x',
    'https://exa mple.com',
    'java\tscript:alert(1)',
  ),
  fc.webUrl(),
);
const siteFields = {
  name: question,
  baseUrl,
  docsDir: fc.oneof(fc.constantFrom('docs', '../..', '/etc', '.', 'a/b'), hostileString),
  allowedOrigins: fc.array(origin, { maxLength: 3 }),
};
const createSiteBody = fc.record({ domain: domainLike, ...siteFields }, { requiredKeys: ['domain'] });
const updateSiteBody = fc.record({ ...siteFields, public: fc.boolean() }, { requiredKeys: [] });
const settingsBody = fc.record(
  {
    model: fc.oneof(
      fc.constantFrom(
        null,
        'builtin',
        'openai:gpt-4o-mini',
        'anthropic:claude-3-5-haiku',
        'openai-compatible:x',
      ),
      fc.constantFrom('nope', 'openai:', ':', 'constructor:__proto__'),
      hostileString,
    ),
    instructions: fc.oneof(fc.constant(null), question, fc.constant('   ')),
    starterQuestions: fc.oneof(
      fc.constant(null),
      fc.array(fc.oneof(question, hostileString, fc.constant('   ')), { maxLength: 8 }),
    ),
  },
  { requiredKeys: [] },
);
const createKeyBody = fc.record(
  {
    kind: fc.constantFrom('assistant', 'admin'),
    site: domainLike,
    name: question,
    expiresAt: fc.oneof(isoDate, fc.constantFrom('2999-01-01T00:00:00Z', 'tomorrow', '2000-02-30T00:00:00Z')),
  },
  { requiredKeys: ['kind'] },
);
const ingestionBody = fc.record({ docsDir: siteFields.docsDir }, { requiredKeys: [] });

// ---------------------------------------------------------------------------------------------------
// Requests and the property

type ResponseKind = 'v1-stream' | 'v2-stream' | 'json' | 'mcp' | 'export';

interface FuzzRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body: FuzzBody;
}

/**
 * The path's domain segment: mostly the real one, sometimes one that breaks map lookups or that
 * PostgreSQL cannot take as text (`%00`, a 500 before the site lookup refused domains the schema does).
 */
function pathWith(template: (domain: string) => string, domain: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 20, arbitrary: fc.constant(template(domain)) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          'constructor',
          '__proto__',
          'toString',
          'nope',
          'a%2F..',
          '%F0%9F%99%82',
          '%00',
          'a%00b',
          'x'.repeat(300),
        )
        .map(template),
    },
  );
}

/** Mostly well-formed headers, sometimes a wrong content type, key or origin. */
function headersWith(base: Record<string, string>, keys: { right: string; wrong: string }) {
  const json = { ...base, 'Content-Type': 'application/json', Authorization: `Bearer ${keys.right}` };
  return fc.oneof(
    { weight: 30, arbitrary: fc.constant(json) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          'text/plain',
          'application/json; charset=utf-16',
          'application/jsonp',
          'multipart/form-data',
        )
        .map((type) => ({ ...json, 'Content-Type': type })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('', 'Bearer', `Bearer ${keys.wrong}`, 'Bearer svc_dsc_nope', `Basic ${keys.right}`)
        .map((authorization) => ({ ...json, Authorization: authorization })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('https://evil.example', 'null', 'http://127.0.0.1')
        .map((o) => ({ ...json, Origin: o })),
    },
  );
}

function fuzzRequests(
  method: FuzzRequest['method'],
  path: fc.Arbitrary<string>,
  headers: fc.Arbitrary<Record<string, string>>,
  valid: fc.Arbitrary<unknown>,
): fc.Arbitrary<FuzzRequest> {
  return fc.record({ method: fc.constant(method), path, headers, body: fuzzBodies(valid) });
}

function isErrorBody(value: unknown): boolean {
  const error = (value as { error?: Record<string, unknown> } | null)?.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof error.code === 'string' &&
    typeof error.message === 'string' &&
    typeof error.requestId === 'string'
  );
}

/** A JSON-RPC error response, as the MCP transport writes for messages it cannot take. */
function isJsonRpcError(value: unknown): boolean {
  const entries = Array.isArray(value) ? value : [value];
  return entries.every((entry) => {
    const error = (entry as { jsonrpc?: unknown; error?: Record<string, unknown> } | null)?.error;
    return (
      (entry as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
      typeof error?.code === 'number' &&
      typeof error.message === 'string'
    );
  });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** What is wrong with a response, or undefined when it is a success or a well-formed 4xx. */
function violation(kind: ResponseKind, status: number, text: string): string | undefined {
  if (status >= 500) return `server error ${status}`;
  if (status >= 400) {
    const parsed = parseJson(text);
    if (!parsed.ok) return `${status} without a JSON body`;
    if (isErrorBody(parsed.value)) return undefined;
    if (kind === 'mcp' && isJsonRpcError(parsed.value)) return undefined;
    return `${status} without the standard error body`;
  }
  if (status < 200 || status >= 300) return `unexpected status ${status}`;
  switch (kind) {
    case 'v1-stream': {
      const lines = text.split('\n');
      if (lines.some((line) => line.startsWith('3:'))) return 'v1 stream with an error part';
      if (!lines.some((line) => line.startsWith('d:'))) return 'v1 stream without its finish part';
      return undefined;
    }
    case 'v2-stream':
      if (text.includes('"type":"error"')) return 'v2 stream with an error chunk';
      if (!text.endsWith('data: [DONE]\n\n')) return 'v2 stream not ended with [DONE]';
      return undefined;
    case 'json':
      return parseJson(text).ok ? undefined : `${status} with a body that is not JSON`;
    case 'mcp': {
      if (status === 202 && text === '') return undefined;
      const parsed = parseJson(text);
      if (!parsed.ok) return `${status} with a body that is not JSON`;
      // Every generated message is the client's doing: none of its mistakes is the server's -32603.
      const replies = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
      if (replies.some((r) => (r as { error?: { code?: unknown } } | null)?.error?.code === -32603))
        return 'a client mistake answered -32603 (internal error)';
      return undefined;
    }
    case 'export':
      return undefined;
  }
}

/**
 * Sends one request and fails (with everything needed to replay it) unless the response is acceptable.
 * Each request on a connection of its own (`reset`), so no case depends on the state another left.
 */
async function expectAcceptable(baseUrl: string, kind: ResponseKind, request: FuzzRequest): Promise<void> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let status: number;
  let text: string;
  let requestId: string | undefined;
  try {
    const response = await undiciRequest(`${baseUrl}${request.path}`, {
      method: request.method,
      headers: request.headers,
      ...(request.method === 'GET' ? {} : { body: request.body.payload }),
      reset: true,
      signal,
    });
    status = response.statusCode;
    requestId = String(response.headers['x-request-id']);
    text = await response.body.text();
  } catch (error) {
    const reason = signal.aborted
      ? `no complete response within ${REQUEST_TIMEOUT_MS} ms`
      : `request failed: ${String(error)}`;
    throw new Error(`${reason}\n${request.method} ${request.path}\nbody: ${request.body.preview()}`);
  }
  const problem = violation(kind, status, text);
  if (problem !== undefined) {
    throw new Error(
      `${problem} (request id ${requestId})\n${request.method} ${request.path}\n` +
        `headers: ${JSON.stringify(request.headers)}\nbody: ${request.body.preview()}\n` +
        `response: ${text.slice(0, 800)}`,
    );
  }
}

async function fuzz(
  fixture: () => Fixture,
  kind: ResponseKind,
  requests: fc.Arbitrary<FuzzRequest>,
  runs: number,
): Promise<void> {
  const { baseUrl } = fixture().server;
  await fc.assert(
    fc.asyncProperty(
      requests,
      withShrinkBudget((request: FuzzRequest) => expectAcceptable(baseUrl, kind, request)),
    ),
    fuzzParameters(runs),
  );
}

// ---------------------------------------------------------------------------------------------------

/** Generated requests per endpoint and database (×2 databases per run). */
const RUNS = {
  v1Message: 300,
  v2Message: 300,
  feedback: 150,
  search: 200,
  page: 120,
  context: 150,
  mcp: 250,
  adminCreateSite: 100,
  adminUpdateSite: 100,
  adminSettings: 80,
  adminCreateKey: 80,
  adminIngestion: 60,
  adminAnalyticsQuery: 200,
  adminResolveFeedback: 60,
  adminRetention: 40,
} as const;

/** The analytics routes that take the filter in their query string. */
const ANALYTICS_ROUTES = [
  'overview',
  'conversations',
  'gaps',
  'questions',
  'pages',
  'feedback',
  'export/conversations.csv',
  'export/feedback.jsonl',
].map((route) => `/v1/admin/analytics/${route}`);

/** Percent-encodes every UTF-8 byte (a lone surrogate becomes U+FFFD, as a browser would send it). */
const percentEncoded = (text: string): string =>
  [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/**
 * One query parameter's value, already encoded: a valid one, a hostile string, or escapes no decoder
 * takes (a lone `%`, invalid UTF-8, NUL).
 */
const queryValue = (valid: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 3, arbitrary: valid.map(encodeURIComponent) },
    { weight: 1, arbitrary: hostileString.map(percentEncoded) },
    { weight: 1, arbitrary: fc.string().map(percentEncoded) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%FF', '%ED%A0%80', '%C0%80', '%00', 'a%00b') },
  );

/** Query strings of the analytics filter: valid values, hostile ones, repeated and unknown parameters. */
const analyticsQuery: fc.Arbitrary<string> = fc
  .record(
    {
      site: queryValue(fc.constantFrom(SITE, ADMIN_SITE, 'nope')),
      period: queryValue(fc.constantFrom('24h', '7d', '30d', '1y')),
      from: queryValue(fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
      to: queryValue(fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
      answered: queryValue(fc.constantFrom('answered', 'unanswered')),
      feedback: queryValue(fc.constantFrom('up', 'down', 'none', 'any')),
      page: queryValue(fc.constantFrom('/keys', 'billing')),
      version: queryValue(fc.constantFrom('v1', 'v2')),
      language: queryValue(fc.constantFrom('en', 'fr')),
      q: queryValue(fc.constantFrom('key', '%', '_', '\\', "'")),
      cursor: queryValue(
        fc.constantFrom('W10', 'WyJhIiwiYiJd', Buffer.from('[1e400,"x",-1]').toString('base64url')),
      ),
      limit: queryValue(fc.constantFrom('1', '50', '0', '-1', '1e3', '101')),
      resolved: queryValue(fc.constantFrom('true', 'false')),
      constructor: fc.string().map(percentEncoded),
    },
    { requiredKeys: [] },
  )
  .chain((params) =>
    fc.boolean().map((repeat) =>
      Object.entries(params)
        .flatMap(([key, value]) =>
          repeat
            ? [
                [key, value],
                [key, value],
              ]
            : [[key, value]],
        )
        .map(([key, value]) => `${key}=${value}`)
        .join('&'),
    ),
  );

beforeAll(() => {
  console.info(`fuzz seed ${fuzzSeed} (FUZZ_SEED=${fuzzSeed} replays this run)`);
});

describe.each(dialects)('fuzzed request bodies on %s', (dialect) => {
  let fixture: Fixture | undefined;
  let docsDir: string | undefined;
  const f = (): Fixture => {
    if (!fixture) throw new Error('fixture not ready');
    return fixture;
  };

  beforeAll(async () => {
    const server = await startTestServer(dialect);
    docsDir = smallDocs();
    const { organization, assistantKey } = await bootstrapSite(server.storage, { domain: SITE, docsDir });
    // Plenty of credits and requests, so limits do not turn every request into a 402 or 429.
    await upsertPlan(server.storage, 'fuzz-unlimited', {
      name: 'fuzz',
      monthlyCredits: 1_000_000_000,
      orgRequestsPerHour: 1_000_000_000,
      ipRequestsPerDay: 1_000_000_000,
      adminRequestsPerMinute: 1_000_000_000,
    });
    await setOrganizationPlan(server.storage, organization.id, 'fuzz-unlimited');
    await createSite(server.storage, { organizationId: organization.id, domain: ADMIN_SITE });
    const admin = await createApiKey(server.storage, {
      organizationId: organization.id,
      siteId: null,
      kind: 'admin',
    });
    // A real thread, so generated follow-ups sometimes name one that exists.
    const asked = await fetch(`${server.baseUrl}/v1/assistant/${SITE}/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${assistantKey}` },
      body: JSON.stringify({
        fp: 'anonymous',
        messages: [{ id: 'm1', role: 'user', content: 'How do I rotate keys?', parts: [] }],
      }),
    });
    const streamed = await asked.text();
    expect(asked.status).toBe(200);
    const start = JSON.parse(streamed.split('\n')[0]?.replace(/^f:/, '') ?? '{}') as { messageId?: string };
    fixture = {
      server,
      assistantKey,
      adminKey: admin.key,
      threadId: asked.headers.get('X-Thread-Id') ?? '',
      threadKey: asked.headers.get('X-Thread-Key') ?? '',
      messageId: start.messageId ?? '',
    };
  });

  afterAll(async () => {
    await fixture?.server.stop();
    if (docsDir) fs.rmSync(docsDir, { recursive: true, force: true });
  });

  const assistant = (extra: Record<string, string> = {}) =>
    fc.constant(null).chain(() => headersWith(extra, { right: f().assistantKey, wrong: f().adminKey }));
  const admin = () =>
    fc.constant(null).chain(() => headersWith({}, { right: f().adminKey, wrong: f().assistantKey }));

  it(
    'POST /v1/assistant/{domain}/message',
    () =>
      fuzz(
        f,
        'v1-stream',
        fuzzRequests(
          'POST',
          pathWith((d) => `/v1/assistant/${d}/message`, SITE),
          assistant(),
          v1Body(f),
        ),
        RUNS.v1Message,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /v2/assistant/{domain}/message',
    () =>
      fuzz(
        f,
        'v2-stream',
        fuzzRequests(
          'POST',
          pathWith((d) => `/v2/assistant/${d}/message`, SITE),
          assistant(),
          v2Body(f),
        ),
        RUNS.v2Message,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /v2/assistant/{domain}/feedback',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests(
          'POST',
          pathWith((d) => `/v2/assistant/${d}/feedback`, SITE),
          assistant(),
          feedbackBody(f),
        ),
        RUNS.feedback,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /v1/search/{domain}',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests(
          'POST',
          pathWith((d) => `/v1/search/${d}`, SITE),
          assistant(),
          searchBody,
        ),
        RUNS.search,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /v1/page/{domain}',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests(
          'POST',
          pathWith((d) => `/v1/page/${d}`, SITE),
          assistant(),
          pageBody,
        ),
        RUNS.page,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /v1/context/{domain}',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests(
          'POST',
          pathWith((d) => `/v1/context/${d}`, SITE),
          assistant(),
          contextBody,
        ),
        RUNS.context,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /mcp/{domain}',
    () =>
      fuzz(
        f,
        'mcp',
        fuzzRequests(
          'POST',
          pathWith((d) => `/mcp/${d}`, SITE),
          assistant({ Accept: 'application/json, text/event-stream' }),
          mcpBody,
        ),
        RUNS.mcp,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /v1/admin/sites',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests('POST', fc.constant('/v1/admin/sites'), admin(), createSiteBody),
        RUNS.adminCreateSite,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'PATCH /v1/admin/sites/{domain}',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests(
          'PATCH',
          pathWith((d) => `/v1/admin/sites/${d}`, ADMIN_SITE),
          admin(),
          updateSiteBody,
        ),
        RUNS.adminUpdateSite,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'PATCH /v1/admin/sites/{domain}/settings',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests(
          'PATCH',
          pathWith((d) => `/v1/admin/sites/${d}/settings`, ADMIN_SITE),
          admin(),
          settingsBody,
        ),
        RUNS.adminSettings,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /v1/admin/keys',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests('POST', fc.constant('/v1/admin/keys'), admin(), createKeyBody),
        RUNS.adminCreateKey,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /v1/admin/sites/{domain}/ingestions',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests(
          'POST',
          pathWith((d) => `/v1/admin/sites/${d}/ingestions`, ADMIN_SITE),
          admin(),
          ingestionBody,
        ),
        RUNS.adminIngestion,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'GET /v1/admin/analytics/* (query strings)',
    async () => {
      const { baseUrl } = f().server;
      const requests = fc.record({
        method: fc.constant('GET' as const),
        path: fc
          .tuple(fc.constantFrom(...ANALYTICS_ROUTES), analyticsQuery)
          .map(([route, query]) => `${route}?${query}`),
        headers: admin(),
        body: fc.constant(new FuzzBody('', 'none')),
      });
      await fc.assert(
        fc.asyncProperty(
          requests,
          withShrinkBudget((request: FuzzRequest) =>
            expectAcceptable(baseUrl, request.path.includes('/export/') ? 'export' : 'json', request),
          ),
        ),
        fuzzParameters(RUNS.adminAnalyticsQuery),
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /v1/admin/analytics/feedback/resolve',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests(
          'POST',
          fc.constant('/v1/admin/analytics/feedback/resolve'),
          admin(),
          fc.record({
            messageId: fc.oneof(fc.constant(f().messageId), fc.string()),
            fpHash: fc.oneof(fc.stringMatching(/^[0-9a-f]{12}$/), fc.string()),
            resolved: fc.boolean(),
          }),
        ),
        RUNS.adminResolveFeedback,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'PUT /v1/admin/organization/retention',
    () =>
      fuzz(
        f,
        'json',
        fuzzRequests(
          'PUT',
          fc.constant('/v1/admin/organization/retention'),
          admin(),
          fc.record({ days: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 3650 })) }),
        ),
        RUNS.adminRetention,
      ),
    PROPERTY_TIMEOUT_MS,
  );

  // Found by this fuzz test (seed 1): the NUL check walked a body recursively, so one nested a few
  // thousand deep with a NUL inside overflowed the call stack (RangeError, answered 500) on every route
  // that reads JSON itself.
  it('regression: a NUL nested thousands deep is a 400, not a stack overflow', async () => {
    const { server, assistantKey } = f();
    const bodies = [
      `${'['.repeat(5_000)}"\\u0000"${']'.repeat(5_000)}`,
      `${'{"a":'.repeat(2_000)}"\\u0000"${'}'.repeat(2_000)}`,
    ];
    const paths = [
      `/v1/assistant/${SITE}/message`,
      `/v2/assistant/${SITE}/message`,
      `/v2/assistant/${SITE}/feedback`,
      ...['/v1/search', '/v1/page', '/v1/context', '/mcp'].map((route) => `${route}/${SITE}`),
    ];
    for (const path of paths) {
      for (const body of bodies) {
        const response = await fetch(`${server.baseUrl}${path}`, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            Authorization: `Bearer ${assistantKey}`,
          },
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        expect(response.status, path).toBe(400);
        expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe(
          'invalid_request',
        );
      }
    }
  });

  it('still answers /healthz and a plain question afterwards', async () => {
    const { server, assistantKey } = f();
    const health = await fetch(`${server.baseUrl}/healthz`, {
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    await expectAcceptable(server.baseUrl, 'v1-stream', {
      method: 'POST',
      path: `/v1/assistant/${SITE}/message`,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${assistantKey}` },
      body: new FuzzBody(
        JSON.stringify({
          fp: 'anonymous',
          messages: [{ id: 'm', role: 'user', content: 'Billing?', parts: [] }],
        }),
        'valid',
      ),
    });
  });
});
