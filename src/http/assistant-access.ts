import type { Context, Handler, MiddlewareHandler } from 'hono';
import { type AssistantCaller, authenticateAssistant } from '../assistant/authenticate.ts';
import type { TrustProxy } from '../config.ts';
import { clientIp } from '../limits/client-ip.ts';
import { rateLimitHeaders } from '../limits/rate-limit-headers.ts';
import type { RateLimitStore, RateWindow } from '../limits/rate-limit-store.ts';
import type { Storage } from '../storage/database.ts';
import { noteKeyUsed } from '../tenancy/api-keys.ts';
import { FALLBACK_PLAN, type Plan } from '../tenancy/plans.ts';
import type { TenancyCache } from '../tenancy/tenancy-cache.ts';
import type { AppEnv } from './app-env.ts';
import { corsResponseHeaders, originAllowed, originForbidden, preflightResponse } from './cors.ts';
import { DocentError } from './errors.ts';
import { requestHeader } from './node-request.ts';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export interface AccessDeps {
  storage: Storage;
  /** Key, site and plan reads, cached. */
  tenancy: TenancyCache;
  store: RateLimitStore;
  trustProxy: TrustProxy;
}

/** An authenticated, admitted caller of an assistant-key route, with its organization's plan. */
export interface AdmittedCaller extends AssistantCaller {
  plan: Plan;
}

interface AccessState {
  /** The request's Origin once the key and site are known (null: no Origin header). */
  origin?: string | null;
  headers: Record<string, string>;
  /** The route wrote the response itself, with `responseHeaders`: `wrap` has nothing left to add. */
  sent?: boolean;
}

/**
 * The HTTP side of every assistant-key route (v1 and v2 messages, resume): CORS, the key, the origin
 * and the rate limits. `wrap` goes in front of the route and adds the CORS and rate-limit headers to
 * whatever response comes out; the route calls `admit` first thing (401/404/403 before 429, and all of
 * it before the body is read, so a limited request costs nothing).
 */
export interface AssistantAccess {
  wrap: MiddlewareHandler<AppEnv>;
  preflight: Handler<AppEnv>;
  /**
   * `allowPublic`: a request without a key may read a site marked public (rate limits still apply).
   * `windows`: which rate-limit windows the request counts against (default `answers`).
   */
  admit(
    c: Context<AppEnv>,
    options?: { allowPublic?: boolean; windows?: WindowFamily },
  ): Promise<AdmittedCaller>;
  /**
   * The CORS and rate-limit headers `wrap` would add, for a response the route writes itself before
   * `wrap` runs (a stream written straight to the socket); `wrap` then leaves the response alone.
   */
  responseHeaders(c: Context<AppEnv>): Record<string, string>;
}

/**
 * Families of rate-limit windows, each with the plan's limits but its own counters: `answers` for the
 * assistant and agent routes, `widget` for the widget's small calls around answers (feedback, its
 * config), so a reader who votes or opens the panel never uses up the organization's answers.
 */
export type WindowFamily = 'answers' | 'widget';

const WINDOW_KEY_PREFIX = { answers: 'a', widget: 'w' } as const satisfies Record<WindowFamily, string>;

/** Windows of the assistant routes; the `{org}` hash tag keeps both on one Redis Cluster slot. */
export function assistantWindows(
  organizationId: string,
  ip: string,
  limits: { orgRequestsPerHour: number; ipRequestsPerDay: number },
  family: WindowFamily = 'answers',
): RateWindow[] {
  const prefix = WINDOW_KEY_PREFIX[family];
  return [
    { key: `${prefix}:{${organizationId}}:org`, limit: limits.orgRequestsPerHour, windowMs: HOUR_MS },
    { key: `${prefix}:{${organizationId}}:ip:${ip}`, limit: limits.ipRequestsPerDay, windowMs: DAY_MS },
  ];
}

function accessHeaders(state: AccessState): Record<string, string> {
  return { ...state.headers, ...(state.origin ? corsResponseHeaders(state.origin) : {}) };
}

export function createAssistantAccess(deps: AccessDeps): AssistantAccess {
  // Keyed by the context, not `c.req.raw`: the body-limit middleware swaps the raw request for a
  // wrapped one when a body comes without Content-Length.
  const states = new WeakMap<Context, AccessState>();
  const stateOf = (c: Context): AccessState => {
    let state = states.get(c);
    if (!state) {
      state = { headers: {} };
      states.set(c, state);
    }
    return state;
  };

  return {
    wrap: async (c, next) => {
      const state = stateOf(c);
      await next();
      if (state.sent) return;
      const origin = requestHeader(c, 'Origin');
      // Failed before the origin check (bad key, unknown domain): a refusal, so the page may read why.
      if (origin !== undefined && state.origin === undefined) state.origin = origin;
      const headers = accessHeaders(state);
      try {
        for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
      } catch {
        // Immutable headers (a fetched Response): copy into a new one.
        c.res = new Response(c.res.body, c.res);
        for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
      }
    },

    responseHeaders: (c) => {
      const state = stateOf(c);
      state.sent = true;
      return accessHeaders(state);
    },

    preflight: async (c) => {
      const origin = requestHeader(c, 'Origin');
      if (!origin) throw new DocentError('invalid_request', 'A CORS preflight needs an Origin header');
      // Every origin gets the permissive answer, and the real request is refused (403, before any
      // work) when its origin is not allowed. A refused preflight would reach the page as a bare
      // network error, so a widget on a staging host would say "cannot be reached" instead of naming
      // the allowed-origins list; answering it gives nothing away that the 403 does not.
      return preflightResponse(c, origin);
    },

    admit: async (c, options) => {
      const caller = await authenticateAssistant(
        deps.tenancy,
        requestHeader(c, 'Authorization'),
        c.req.param('domain') ?? '',
        options,
      );
      const state = stateOf(c);
      const origin = requestHeader(c, 'Origin');
      if (origin !== undefined && !originAllowed(caller.site, origin)) {
        // The refusal carries CORS headers so the page can read why (the widget names the fix).
        state.origin = origin;
        throw originForbidden(origin, caller.site.domain);
      }
      state.origin = origin ?? null;
      const organizationId = caller.site.organization_id;
      const plan = (await deps.tenancy.organizationPlan(organizationId)) ?? FALLBACK_PLAN;
      const windows = assistantWindows(organizationId, clientIp(c, deps.trustProxy), plan, options?.windows);
      const decision = await deps.store.hit(windows).catch((error: unknown) => {
        throw new DocentError('unavailable', 'Rate limiting is unavailable; try again shortly', {
          cause: error,
          headers: { 'Retry-After': '5' },
        });
      });
      state.headers = rateLimitHeaders(decision);
      if (!decision.allowed) {
        const tight = decision.windows.findIndex((w) => w.remaining === 0);
        const which =
          tight === 0
            ? `${plan.orgRequestsPerHour} requests per hour for this organization`
            : `${plan.ipRequestsPerDay} requests per day from this IP address`;
        throw new DocentError('rate_limited', `Rate limit exceeded: ${which}`, { headers: state.headers });
      }
      if (caller.key !== null)
        await noteKeyUsed(deps.storage, caller.key).catch((error: unknown) =>
          c.get('logger').warn({ err: error }, 'recording key use failed'),
        );
      return { ...caller, plan };
    },
  };
}
