import type { Context } from 'hono';
import { RATE_LIMIT_HEADERS } from '../limits/rate-limit-headers.ts';
import { type Site, siteAllowedOrigins } from '../tenancy/sites.ts';
import { DocentError } from './errors.ts';

/** Headers a browser page may read from an assistant answer: thread continuity, tracing, limits. */
export const EXPOSED_HEADERS = ['X-Thread-Id', 'X-Thread-Key', 'X-Request-Id', ...RATE_LIMIT_HEADERS];
/**
 * `User-Agent`: some AI SDK 5 and 6 releases set their own, which makes a browser ask for it in the
 * preflight (protocol notes). `Mcp-Protocol-Version`, `Mcp-Session-Id` and `Last-Event-ID`: the MCP
 * SDK's Streamable HTTP client sends them (the first on every request after `initialize`), so a browser
 * MCP client's preflight names them.
 */
export const ALLOWED_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Request-Id',
  'User-Agent',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
  'Last-Event-ID',
];
/** `GET`: resuming a v2 answer stream. */
export const ALLOWED_METHODS = ['POST', 'GET', 'OPTIONS'];
/** How long (seconds) a browser may cache a preflight answer. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Whether a browser page at `origin` may call the site. No list means any origin: an assistant key
 * is public by design, and most sites embed the widget on their own docs only.
 */
export function originAllowed(site: Pick<Site, 'allowed_origins'> | undefined, origin: string): boolean {
  if (!site) return true;
  const allowed = siteAllowedOrigins(site);
  return allowed.length === 0 || allowed.includes(origin);
}

export function originForbidden(origin: string, domain: string): DocentError {
  return new DocentError(
    'forbidden',
    `Origin ${origin} is not allowed to call the assistant of site "${domain}"; add it to the site's allowed origins`,
  );
}

/** Headers for an actual (non-preflight) response to an allowed origin. */
export function corsResponseHeaders(origin: string): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', '),
    Vary: 'Origin',
  };
}

/** The answer to a preflight from an allowed origin. */
export function preflightResponse(c: Context, origin: string): Response {
  return c.body(null, 204, {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': ALLOWED_METHODS.join(', '),
    'Access-Control-Allow-Headers': ALLOWED_REQUEST_HEADERS.join(', '),
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    Vary: 'Origin',
  });
}
