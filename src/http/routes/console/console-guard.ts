import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { TrustProxy } from '../../../config.ts';
import type { Storage } from '../../../storage/database.ts';
import {
  CONSOLE_SESSION_HOURS,
  csrfTokenMatches,
  findConsoleSession,
} from '../../../tenancy/console-sessions.ts';
import { DocentError } from '../../errors.ts';
import { requestHeader } from '../../node-request.ts';
import { requestOrigin } from '../../request-origin.ts';
import type { ConsoleEnv } from './console-env.ts';
import { readForm } from './form-body.ts';

export const SESSION_COOKIE = 'docent_console';
/** The console's own paths: the cookie is sent nowhere else. */
export const CONSOLE_PATH = '/console';

/**
 * Content Security Policy of every console page: scripts and styles only from Docent itself (the console
 * bundle; inline styles for charts), connections only to Docent, no framing.
 */
export const CONSOLE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

export interface GuardDeps {
  storage: Storage;
  trustProxy: TrustProxy;
  publicUrl: string | null;
}

function origin(c: Context, deps: GuardDeps): string {
  return deps.publicUrl ?? requestOrigin(c, deps.trustProxy);
}

/** The session cookie: HttpOnly, SameSite=Strict, scoped to the console, Secure over HTTPS. */
export function setSessionCookie(c: Context, deps: GuardDeps, secret: string): void {
  setCookie(c, SESSION_COOKIE, secret, {
    path: CONSOLE_PATH,
    httpOnly: true,
    sameSite: 'Strict',
    secure: origin(c, deps).startsWith('https:'),
    maxAge: CONSOLE_SESSION_HOURS * 3_600,
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: CONSOLE_PATH });
}

export function sessionSecret(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

/**
 * A state-changing request must come from a console page: its `Origin` is Docent's own (browsers send
 * it on every POST; a cross-site form or fetch carries its own), whatever the cookie says.
 */
export function requireSameOrigin(c: Context, deps: GuardDeps): void {
  const sent = requestHeader(c, 'Origin');
  if (sent === undefined || sent !== origin(c, deps))
    throw new DocentError('forbidden', 'Console forms are accepted only from the console itself');
}

/** Every console page but sign-in: a live session, else to the sign-in page. */
export function requireSession(deps: GuardDeps): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    // Sign-in and the console's script are the routes before it; they never need a session.
    if (c.req.path === `${CONSOLE_PATH}/login` || c.req.path.startsWith(`${CONSOLE_PATH}/assets/`))
      return next();
    const secret = sessionSecret(c);
    const session = secret ? await findConsoleSession(deps.storage, secret) : undefined;
    if (!session) {
      if (secret) clearSessionCookie(c);
      if (c.req.method !== 'GET') throw new DocentError('unauthorized', 'Sign in to the console first');
      return c.redirect(`${CONSOLE_PATH}/login`, 303);
    }
    c.set('session', session);
    if (c.req.method === 'POST') {
      requireSameOrigin(c, deps);
      const body = await readForm(c);
      const token = typeof body._csrf === 'string' ? body._csrf : requestHeader(c, 'X-CSRF-Token');
      if (!csrfTokenMatches(session, token))
        throw new DocentError('forbidden', 'Missing or wrong CSRF token');
    }
    await next();
  };
}

/**
 * `CONSOLE_HEADERS` on every console response, errors included (a refused form, a body too large, a
 * session gone): the outermost console middleware, so it runs after the error handler has answered.
 * The console's script keeps its own caching.
 */
export const consoleHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  if (c.req.path.startsWith(`${CONSOLE_PATH}/assets/`)) return;
  for (const [name, value] of Object.entries(CONSOLE_HEADERS)) c.res.headers.set(name, value);
};
