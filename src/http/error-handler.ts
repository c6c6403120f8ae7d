import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { html } from 'hono/html';
import { HTTPException } from 'hono/http-exception';
import { DomainError } from '../errors/domain-error.ts';
import { databaseUnavailable } from '../storage/database-open-problem.ts';
import type { OutageLog } from '../storage/outage-log.ts';
import type { AppEnv } from './app-env.ts';
import { DocentError, type ErrorCode, errorBody, fromDomainError } from './errors.ts';

function fromHttpException(error: HTTPException): DocentError {
  const byStatus: Partial<Record<number, ErrorCode>> = {
    400: 'invalid_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
  };
  const code = byStatus[error.status];
  if (code) return new DocentError(code, error.message || code.replace(/_/g, ' '));
  return new DocentError('internal_error', 'Internal server error', { cause: error });
}

/** What a client whose request found the database unavailable is told to wait before trying again. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Longest path written to a log line. */
const MAX_LOGGED_PATH = 200;

function respond(c: Context<AppEnv>, error: DocentError): Response {
  const requestId = c.get('requestId') ?? 'unknown';
  if (error.status < 500) {
    // An integrator debugging "my widget gets 403" looks the request id up in the log. A flood of 429s
    // from one abuser would drown it, so those are written at debug level only.
    const line = {
      status: error.status,
      code: error.code,
      method: c.req.method,
      path: new URL(c.req.url).pathname.slice(0, MAX_LOGGED_PATH),
    };
    const logger = c.get('logger');
    if (error.status === 429) logger?.debug(line, 'request refused');
    else logger?.info(line, 'request refused');
  }
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  if (consolePage(c)) return c.html(String(consoleErrorPage(error, requestId)), error.status);
  return c.json(errorBody(error, requestId), error.status);
}

/**
 * A page of the owner's console a browser asked for (a link, the address bar, a form sent), not its
 * assets, exports or the JSON its script reads.
 */
function consolePage(c: Context<AppEnv>): boolean {
  const path = new URL(c.req.url).pathname;
  return (
    (c.req.method === 'GET' || c.req.method === 'POST') &&
    (path === '/console' || path.startsWith('/console/')) &&
    !path.startsWith('/console/assets/') &&
    !path.startsWith('/console/export/') &&
    (c.req.header('Accept') ?? '').includes('text/html')
  );
}

/** The same error as a page a person can read and leave (a deleted conversation, another organization's site). */
function consoleErrorPage(error: DocentError, requestId: string) {
  // A refused request (a bad value, no permission) is not a failure of the server's: say which it is.
  const heading =
    error.status === 404
      ? 'Not found'
      : error.status === 403
        ? 'Not allowed'
        : error.status === 429
          ? 'Too many requests'
          : error.status < 500
            ? 'Not accepted'
            : 'Something went wrong';
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${heading} · Docent console</title>
    <style>
      body{font:16px/1.5 system-ui,sans-serif;margin:3rem auto;max-width:36rem;padding:0 1rem;color:#1f2937}
    </style>
  </head>
  <body>
    <main>
      <h1>${heading}</h1>
      <p>${error.message}</p>
      <p><a href="/console">Back to the console</a></p>
      <p><small>Request id <code>${requestId}</code></small></p>
    </main>
  </body>
</html>`;
}

export interface ErrorHandlerOptions {
  /** Told of each request that found the database unreachable; absent: each is logged with its error. */
  databaseOutage?: OutageLog;
}

/** The one error handler: every failure becomes `{error: {code, message, details?, requestId}}`. */
export function createErrorHandler(options: ErrorHandlerOptions = {}): ErrorHandler<AppEnv> {
  return (error, c) => {
    if (error instanceof DocentError) return respond(c, error);
    if (error instanceof DomainError) return respond(c, fromDomainError(error));
    if (error instanceof HTTPException) return respond(c, fromHttpException(error));
    // Malformed JSON bodies surface from Hono's body parsing as SyntaxError.
    if (error instanceof SyntaxError)
      return respond(c, new DocentError('invalid_request', 'Malformed JSON body'));
    if (databaseUnavailable(error)) {
      if (options.databaseOutage) options.databaseOutage.failed(error, { requestId: c.get('requestId') });
      else c.get('logger')?.error({ err: error, requestId: c.get('requestId') }, 'database unavailable');
      return respond(
        c,
        new DocentError('unavailable', 'The database is unavailable; try again shortly', {
          headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
        }),
      );
    }
    c.get('logger')?.error({ err: error, requestId: c.get('requestId') }, 'unhandled error');
    return respond(c, new DocentError('internal_error', 'Internal server error'));
  };
}

export const handleError: ErrorHandler<AppEnv> = createErrorHandler();

export const handleNotFound: NotFoundHandler<AppEnv> = (c) =>
  respond(c, new DocentError('not_found', `No route for ${c.req.method} ${new URL(c.req.url).pathname}`));

/**
 * Not found, unless the path has routes for other methods: then 405 with `Allow` (a GET on the POST
 * message route is a wrong method, not a wrong address). `routes` is the app's own table (`app.routes`).
 */
export function notFoundOrWrongMethod(
  routes: readonly { method: string; path: string }[],
): NotFoundHandler<AppEnv> {
  const patterns = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  const compile = (): void => {
    for (const route of routes) {
      // Middleware (`ALL`, with wildcards) allows nothing of its own.
      if (route.method === 'ALL' || route.path.includes('*')) continue;
      let entry = patterns.get(route.path);
      if (entry === undefined) {
        entry = { pattern: routePattern(route.path), methods: new Set() };
        patterns.set(route.path, entry);
      }
      entry.methods.add(route.method);
    }
  };
  return (c) => {
    // The table is complete once the app serves: read on the first miss, not when the handler is made.
    if (patterns.size === 0) compile();
    const path = new URL(c.req.url).pathname;
    const allowed = new Set<string>();
    for (const { pattern, methods } of patterns.values())
      if (pattern.test(path)) for (const method of methods) allowed.add(method);
    // A method the path has would have been routed: whatever missed is not a wrong method.
    if (allowed.size === 0 || allowed.has(c.req.method)) return handleNotFound(c);
    const allow = [...allowed].sort().join(', ');
    return respond(
      c,
      new DocentError('method_not_allowed', `${c.req.method} is not allowed here: use ${allow}`, {
        headers: { Allow: allow },
      }),
    );
  };
}

/**
 * A route path as the router matches it: `:name` is one segment, `:name{regex}` is the regex (which may
 * span segments, as `:path{.+}` does); no trailing slash unless the route has one.
 */
export function routePattern(path: string): RegExp {
  let source = '';
  let i = 0;
  while (i < path.length) {
    if (path[i] !== ':') {
      source += (path[i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i++;
      continue;
    }
    i++;
    while (i < path.length && /[\w-]/.test(path[i] as string)) i++;
    if (path[i] !== '{') {
      source += '[^/]+';
      continue;
    }
    // The regex runs to the brace that closes the one opening it (a regex may hold `{2,3}`).
    let depth = 0;
    const start = i + 1;
    for (; i < path.length; i++) {
      if (path[i] === '{') depth++;
      else if (path[i] === '}' && --depth === 0) break;
    }
    source += `(?:${path.slice(start, i)})`;
    i++;
  }
  return new RegExp(`^${source}$`);
}
