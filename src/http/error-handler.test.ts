import { Writable } from 'node:stream';
import { Hono } from 'hono';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors/domain-error.ts';
import type { AppEnv } from './app-env.ts';
import { handleError, handleNotFound, notFoundOrWrongMethod, routePattern } from './error-handler.ts';
import { DocentError } from './errors.ts';

/** An app as createApp wires the error handler: a request id and a logger carrying it, then routes. */
function appLogging(lines: Record<string, unknown>[]): Hono<AppEnv> {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set('requestId', 'req_test');
    c.set('logger', logger.child({ requestId: 'req_test' }));
    await next();
  });
  app.get('/forbidden', () => {
    throw new DocentError('forbidden', 'Origin https://evil.example is not allowed for this site');
  });
  app.get('/limited', () => {
    throw new DocentError('rate_limited', 'Too many requests');
  });
  app.onError(handleError);
  app.notFound(handleNotFound);
  return app;
}

describe('refused requests in the log', () => {
  it('are written with their request id, status, code and path; 429s only at debug level', async () => {
    const lines: Record<string, unknown>[] = [];
    const app = appLogging(lines);
    const forbidden = await app.request('/forbidden');
    expect(forbidden.status).toBe(403);
    expect(await app.request('/nowhere', { method: 'PUT' })).toHaveProperty('status', 404);
    expect(await app.request('/limited')).toHaveProperty('status', 429);
    await new Promise((resolve) => setImmediate(resolve));
    expect(
      lines.map(({ requestId, status, code, method, path, msg }) => ({
        requestId,
        status,
        code,
        method,
        path,
        msg,
      })),
    ).toEqual([
      {
        requestId: 'req_test',
        status: 403,
        code: 'forbidden',
        method: 'GET',
        path: '/forbidden',
        msg: 'request refused',
      },
      {
        requestId: 'req_test',
        status: 404,
        code: 'not_found',
        method: 'PUT',
        path: '/nowhere',
        msg: 'request refused',
      },
    ]);
  });
});

describe('a wrong method', () => {
  it('is 405 with Allow where the path has routes for other methods, 404 elsewhere', async () => {
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set('requestId', 'req_test');
      await next();
    });
    const message = new Hono<AppEnv>();
    message.options('/v2/assistant/:domain/message', (c) => c.body(null, 204));
    message.post('/v2/assistant/:domain/message', (c) => c.text('answer'));
    app.route('/', message);
    app.onError(handleError);
    app.notFound(notFoundOrWrongMethod(app.routes));

    const wrong = await app.request('/v2/assistant/demo/message');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('Allow')).toBe('OPTIONS, POST');
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    expect((await app.request('/v2/assistant/demo/message', { method: 'POST' })).status).toBe(200);
    expect((await app.request('/v2/assistant/demo/nothing')).status).toBe(404);
    expect((await app.request('/v2/assistant/demo/message/extra')).status).toBe(404);
  });

  it("reads a route's parameter patterns as the router does, and no trailing slash the route lacks", async () => {
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set('requestId', 'req_test');
      await next();
    });
    app.get('/export/:file{(conversations|feedback)\\.(csv|jsonl)}', (c) => c.text('csv'));
    app.get('/sites/:domain/pages/:path{.+}', (c) => c.text('page'));
    app.post('/mcp/:domain', (c) => c.text('mcp'));
    app.onError(handleError);
    app.notFound(notFoundOrWrongMethod(app.routes));

    const status = async (path: string, method = 'GET') => (await app.request(path, { method })).status;
    expect(await status('/export/feedback.csv')).toBe(200);
    expect(await status('/export/feedback.csv', 'POST')).toBe(405);
    // Before: "GET is not allowed here: use GET", as if every name matched the pattern.
    expect(await status('/export/other.xml')).toBe(404);
    expect(await status('/sites/demo/pages/guides/cli', 'POST')).toBe(405);
    expect(await status('/mcp/demo', 'GET')).toBe(405);
    // Before: "POST is not allowed here: use POST".
    const slash = await app.request('/mcp/demo/', { method: 'POST' });
    expect(slash.status).toBe(404);
    expect(((await slash.json()) as { error: { message: string } }).error.message).toBe(
      'No route for POST /mcp/demo/',
    );
  });

  it('compiles route paths to the patterns the router matches', () => {
    expect(routePattern('/a/:b/c').source).toBe('^\\/a\\/[^/]+\\/c$');
    expect(routePattern('/x/:n{[0-9]{2,3}}').test('/x/123')).toBe(true);
    expect(routePattern('/x/:n{[0-9]{2,3}}').test('/x/1234')).toBe(false);
    expect(routePattern('/x/:n{[0-9]{2,3}}').test('/x/12/')).toBe(false);
  });
});

describe('a domain error saying too many are running', () => {
  it('is a 429 rate_limited with the Retry-After it names', async () => {
    const app = appLogging([]);
    app.get('/busy', () => {
      throw new DomainError('too_many_running', 'This organization already has 3 ingestions running', {
        retryAfterSeconds: 30,
      });
    });
    const response = await app.request('/busy');
    expect(response.status).toBe(429);
    expect(response.headers.get('Retry-After')).toBe('30');
    expect(await response.json()).toEqual({
      error: {
        code: 'rate_limited',
        message: 'This organization already has 3 ingestions running',
        requestId: 'req_test',
      },
    });
  });
});
