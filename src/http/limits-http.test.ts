import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinAnswerer } from '../assistant/builtin-answerer.ts';
import { getBalance } from '../limits/credits.ts';
import { ask, askBody, countStatuses, createTenant } from '../limits/limits-fixtures.ts';
import { dialects } from '../testing/databases.ts';
import { startTestServer, type TestServer } from '../testing/server.ts';
import { EXPOSED_HEADERS } from './cors.ts';

const CONCURRENT_CREDIT_REQUESTS = 200;
const REMAINING_CREDITS = 50;
const CONCURRENT_RATE_REQUESTS = 100;
const HOURLY_LIMIT = 20;

async function ledger(server: TestServer, organizationId: string) {
  return server.storage.db
    .selectFrom('credit_ledger')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .execute();
}

describe.each(dialects)('assistant limits and credits on %s', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    // The `broken` site's model fails before writing any text; every other site gets the built-in one.
    server = await startTestServer(dialect, {
      modelProvider: ({ site, sources, context }) =>
        site.domain.startsWith('broken')
          ? new MockLanguageModelV3({
              doStream: async () => {
                throw new Error('model is down');
              },
            })
          : new BuiltinAnswerer({ sources, context }),
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it(`answers exactly ${REMAINING_CREDITS} of ${CONCURRENT_CREDIT_REQUESTS} concurrent requests and refuses the rest with 402`, async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'credits',
      plan: { monthlyCredits: REMAINING_CREDITS, overageEnabled: false },
    });
    const responses = await Promise.all(
      Array.from({ length: CONCURRENT_CREDIT_REQUESTS }, () =>
        ask(server.baseUrl, 'credits', tenant.assistantKey),
      ),
    );
    expect(countStatuses(responses.map((r) => r.status))).toEqual({
      200: REMAINING_CREDITS,
      402: CONCURRENT_CREDIT_REQUESTS - REMAINING_CREDITS,
    });
    for (const r of responses.filter((r) => r.status === 402)) {
      expect(JSON.parse(r.text).error.code).toBe('credits_exhausted');
    }
    for (const r of responses.filter((r) => r.status === 200)) expect(r.text).toContain('\nd:');
    const entries = await ledger(server, tenant.organization.id);
    expect(entries).toHaveLength(REMAINING_CREDITS);
    expect(new Set(entries.map((e) => e.request_id)).size).toBe(REMAINING_CREDITS);
    expect(entries.every((e) => e.kind === 'charge' && Number(e.credits) === 1)).toBe(true);
    const answeredIds = responses.filter((r) => r.status === 200).map((r) => r.headers.get('X-Request-Id'));
    expect(new Set(entries.map((e) => e.request_id))).toEqual(new Set(answeredIds));
    expect(await getBalance(server.storage, tenant.organization.id)).toMatchObject({
      used: REMAINING_CREDITS,
      overage: 0,
      remaining: 0,
    });
  });

  it(`answers exactly ${HOURLY_LIMIT} of ${CONCURRENT_RATE_REQUESTS} concurrent requests under a limit of ${HOURLY_LIMIT}/hour`, async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'rated',
      plan: { orgRequestsPerHour: HOURLY_LIMIT },
    });
    const responses = await Promise.all(
      Array.from({ length: CONCURRENT_RATE_REQUESTS }, () =>
        ask(server.baseUrl, 'rated', tenant.assistantKey),
      ),
    );
    expect(countStatuses(responses.map((r) => r.status))).toEqual({
      200: HOURLY_LIMIT,
      429: CONCURRENT_RATE_REQUESTS - HOURLY_LIMIT,
    });
    const limited = responses.find((r) => r.status === 429);
    expect(JSON.parse(limited?.text ?? '{}').error.code).toBe('rate_limited');
    expect(Number(limited?.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(Number(limited?.headers.get('Retry-After'))).toBeLessThanOrEqual(3600);
    expect(limited?.headers.get('RateLimit-Limit')).toBe(String(HOURLY_LIMIT));
    expect(limited?.headers.get('RateLimit-Remaining')).toBe('0');
    const answered = responses.filter((r) => r.status === 200);
    expect(answered.map((r) => r.headers.get('RateLimit-Limit'))).toEqual(
      answered.map(() => String(HOURLY_LIMIT)),
    );
    expect(new Set(answered.map((r) => r.headers.get('RateLimit-Remaining')))).toEqual(
      new Set(Array.from({ length: HOURLY_LIMIT }, (_, i) => String(i))),
    );
    // Limited requests cost no credit.
    expect(await ledger(server, tenant.organization.id)).toHaveLength(HOURLY_LIMIT);
  });

  it('counts the per-IP daily limit and reports the tighter window', async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'per-ip',
      plan: { ipRequestsPerDay: 3, orgRequestsPerHour: 100 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await ask(server.baseUrl, 'per-ip', tenant.assistantKey)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const last = await ask(server.baseUrl, 'per-ip', tenant.assistantKey);
    expect(JSON.parse(last.text).error.message).toMatch(/per day from this IP/);
    expect(last.headers.get('RateLimit-Limit')).toBe('3');
    // X-Forwarded-For is not trusted by default: another claimed address is the same client.
    const spoofed = await ask(server.baseUrl, 'per-ip', tenant.assistantKey, {
      headers: { 'X-Forwarded-For': '203.0.113.9' },
    });
    expect(spoofed.status).toBe(429);
  });

  it('runs the checks in order: auth, origin, rate limit, body, credits', async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'order',
      plan: { orgRequestsPerHour: 2, monthlyCredits: 0 },
      allowedOrigins: ['https://docs.example.com'],
    });
    const bad = { fp: '' };
    // A bad key wins over everything.
    expect((await ask(server.baseUrl, 'order', 'svc_dsc_wrong', { body: bad })).status).toBe(401);
    // A disallowed origin wins over the rate limit and the body, and uses up no request.
    const evil = await ask(server.baseUrl, 'order', tenant.assistantKey, {
      body: bad,
      headers: { Origin: 'https://evil.example' },
    });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.text).error.message).toMatch(/Origin https:\/\/evil\.example is not allowed/);
    // The page may read the refusal: the widget then names the fix instead of "cannot be reached".
    expect(evil.headers.get('Access-Control-Allow-Origin')).toBe('https://evil.example');
    // Body validation comes before credits (the plan has none), and counts against the rate limit.
    expect((await ask(server.baseUrl, 'order', tenant.assistantKey, { body: bad })).status).toBe(400);
    const broke = await ask(server.baseUrl, 'order', tenant.assistantKey);
    expect(broke.status).toBe(402);
    expect(JSON.parse(broke.text).error.code).toBe('credits_exhausted');
    // The rate limit comes before the body.
    expect((await ask(server.baseUrl, 'order', tenant.assistantKey, { body: bad })).status).toBe(429);
    expect(await ledger(server, tenant.organization.id)).toHaveLength(0);
  });

  it('answers CORS preflights per site and exposes the thread, request and rate-limit headers', async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'cors',
      allowedOrigins: ['https://docs.example.com'],
    });
    const open = await createTenant(server.storage, { domain: 'cors-open' });
    const preflight = (domain: string, origin: string) =>
      fetch(`${server.baseUrl}/v1/assistant/${domain}/message`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
    const allowed = await preflight('cors', 'https://docs.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('Access-Control-Allow-Origin')).toBe('https://docs.example.com');
    expect(allowed.headers.get('Access-Control-Allow-Methods')).toContain('POST');
    expect(allowed.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('authorization');
    // Any origin's preflight is answered; its real request is then refused with a readable 403 (above).
    const refused = await preflight('cors', 'https://evil.example');
    expect(refused.status).toBe(204);
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe('https://evil.example');
    // A site without a list allows any origin; so does an unknown domain (no probing through preflights).
    expect((await preflight('cors-open', 'https://anywhere.example')).status).toBe(204);
    expect((await preflight('no-such-site', 'https://anywhere.example')).status).toBe(204);

    const answered = await ask(server.baseUrl, 'cors', tenant.assistantKey, {
      headers: { Origin: 'https://docs.example.com' },
    });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('Access-Control-Allow-Origin')).toBe('https://docs.example.com');
    const exposed = (answered.headers.get('Access-Control-Expose-Headers') ?? '').split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(EXPOSED_HEADERS));
    expect(exposed).toEqual(
      expect.arrayContaining([
        'X-Thread-Id',
        'X-Thread-Key',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
      ]),
    );
    expect(answered.headers.get('X-Thread-Id')).toMatch(/^thr_/);
    expect(answered.headers.get('RateLimit-Remaining')).not.toBeNull();
    const anyOrigin = await ask(server.baseUrl, 'cors-open', open.assistantKey, {
      headers: { Origin: 'https://anywhere.example' },
    });
    expect(anyOrigin.status).toBe(200);
    expect(anyOrigin.headers.get('Access-Control-Allow-Origin')).toBe('https://anywhere.example');
    // Errors before the origin check still carry CORS headers, so the page can read why.
    const unauthorized = await ask(server.baseUrl, 'cors', 'svc_dsc_nope', {
      headers: { Origin: 'https://docs.example.com' },
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('Access-Control-Allow-Origin')).toBe('https://docs.example.com');
  });

  it('refunds a request that fails before any answer text, exactly once, and never an answered one', async () => {
    const tenant = await createTenant(server.storage, { domain: 'broken', plan: { monthlyCredits: 5 } });
    const failed = await ask(server.baseUrl, 'broken', tenant.assistantKey);
    expect(failed.status).toBe(503);
    const requestId = failed.headers.get('X-Request-Id');
    const entries = await ledger(server, tenant.organization.id);
    expect(entries.map((e) => [e.request_id, e.kind, Number(e.credits)]).sort()).toEqual([
      [requestId, 'charge', 1],
      [requestId, 'refund', -1],
    ]);
    expect((await getBalance(server.storage, tenant.organization.id)).used).toBe(0);

    // A follow-up on a thread that does not exist is refused before the charge: nothing to refund.
    const good = await createTenant(server.storage, { domain: 'refunds', plan: { monthlyCredits: 5 } });
    const missing = await ask(server.baseUrl, 'refunds', good.assistantKey, {
      body: { ...askBody(), threadId: 'thr_missing' },
    });
    expect(missing.status).toBe(404);
    const ok = await ask(server.baseUrl, 'refunds', good.assistantKey);
    expect(ok.status).toBe(200);
    const goodEntries = await ledger(server, good.organization.id);
    expect(goodEntries.map((e) => [e.request_id, e.kind])).toEqual([
      [ok.headers.get('X-Request-Id'), 'charge'],
    ]);
    expect((await getBalance(server.storage, good.organization.id)).used).toBe(1);
  });

  it('ignores a client-sent X-Request-Id, so a repeated id cannot replay a free answer', async () => {
    const tenant = await createTenant(server.storage, { domain: 'replay', plan: { monthlyCredits: 5 } });
    const headers = { 'X-Request-Id': 'same-id-every-time' };
    const first = await ask(server.baseUrl, 'replay', tenant.assistantKey, { headers });
    const second = await ask(server.baseUrl, 'replay', tenant.assistantKey, { headers });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.headers.get('X-Request-Id')).not.toBe('same-id-every-time');
    expect(first.headers.get('X-Request-Id')).not.toBe(second.headers.get('X-Request-Id'));
    expect((await getBalance(server.storage, tenant.organization.id)).used).toBe(2);
  });
});
