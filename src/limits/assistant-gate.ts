import type { Context, Handler, MiddlewareHandler } from 'hono';
import { LRUCache } from 'lru-cache';
import type { TrustProxy } from '../config.ts';
import type { AppEnv } from '../http/app-env.ts';
import { DocentError } from '../http/errors.ts';
import { requestHeader } from '../http/node-request.ts';
import type { Storage } from '../storage/database.ts';
import { isUniqueViolation } from '../storage/unique-violation.ts';
import { type WriteUnit, withWriteUnit } from '../storage/write-unit.ts';
import { type ApiKey, noteKeyUsed } from '../tenancy/api-keys.ts';
import { FALLBACK_PLAN, type Plan } from '../tenancy/plans.ts';
import type { Site } from '../tenancy/sites.ts';
import type { TenancyCache } from '../tenancy/tenancy-cache.ts';
import { clientIp } from './client-ip.ts';
import { corsResponseHeaders, originAllowed, originForbidden, preflightResponse } from './cors.ts';
import { chargeWithin, refundCredits, refundWithin } from './credits.ts';
import { rateLimitHeaders } from './rate-limit-headers.ts';
import type { RateLimitStore, RateWindow } from './rate-limit-store.ts';

export const HOUR_MS = 3_600_000;
/**
 * Credits an organization must have had left after its last charge on this process before its answer
 * may start while the charge is still committing (`mayAnswerBeforeCharged`): more than the answers that
 * can plausibly be starting at once, so a stale figure (other processes charging too) still cannot reach
 * the end of the credits unnoticed.
 */
export const EARLY_ANSWER_HEADROOM = 64;
/** Organizations whose last known headroom this process keeps. */
const HEADROOM_ENTRIES = 10_000;
/** Appends racing on one thread's sequence number are retried this often before giving up. */
const MAX_SETTLE_ATTEMPTS = 5;
export const DAY_MS = 86_400_000;

export interface GateDeps {
  storage: Storage;
  /** Site and plan reads, cached. */
  tenancy: TenancyCache;
  store: RateLimitStore;
  trustProxy: TrustProxy;
}

interface GateState {
  /** The request's Origin once it is known to be allowed (null: no Origin header). */
  origin?: string | null;
  headers: Record<string, string>;
  charged?: { organizationId: string; requestId: string };
  /** Read once by `admit` (rate limits) and reused by `charge` (credits). */
  plan?: Plan;
  /** The route wrote the response itself, with `streamHeaders`: `wrap` has nothing left to add. */
  sent?: boolean;
}

/**
 * Origin, rate and credit checks of the assistant route, in the order the route calls them:
 * `admit` after authentication (403 origin, 429), `charge` after body validation (402), `settle`
 * once the answer stream ends. `wrap` goes in front of the route: it adds CORS and rate-limit headers
 * to whatever response comes out, and refunds a charged request that ends in an error response.
 */
export interface AssistantGate {
  wrap: MiddlewareHandler<AppEnv>;
  preflight: Handler<AppEnv>;
  /**
   * The CORS and rate-limit headers `wrap` would add, for a response the route writes itself before
   * `wrap` runs (a stream written straight to the socket); `wrap` then leaves the response alone.
   */
  streamHeaders(c: Context<AppEnv>): Record<string, string>;
  admit(c: Context<AppEnv>, caller: { key: ApiKey; site: Site }): Promise<void>;
  /**
   * Charges the request and runs `within` in the same write unit (the route creates its thread
   * there), so both commit or neither does.
   */
  charge<T>(c: Context<AppEnv>, caller: { site: Site }, within: (unit: WriteUnit) => Promise<T>): Promise<T>;
  /**
   * Whether the answer may start (the model request go out) before `charge` has committed: when the
   * charge cannot be refused for credits, because the plan's overage is uncapped or the organization
   * had at least `EARLY_ANSWER_HEADROOM` credits left after its last charge here. Otherwise a request
   * the charge would refuse could make the operator pay a model for nothing. Call after `admit`.
   */
  mayAnswerBeforeCharged(c: Context<AppEnv>, caller: { site: Site }): boolean;
  /**
   * Refunds when the stream failed or was cut off before any answer text went out, and runs `within`
   * (the route stores the answer) in the same write unit.
   */
  settle(
    c: Context<AppEnv>,
    outcome: { text: string; error?: unknown; aborted: boolean },
    within: (unit: WriteUnit) => Promise<void>,
  ): Promise<void>;
}

function gateHeaders(state: GateState): Record<string, string> {
  return { ...state.headers, ...(state.origin ? corsResponseHeaders(state.origin) : {}) };
}

/** Windows of the assistant route; the `{org}` hash tag keeps both on one Redis Cluster slot. */
export function assistantWindows(
  organizationId: string,
  ip: string,
  limits: { orgRequestsPerHour: number; ipRequestsPerDay: number },
): RateWindow[] {
  return [
    { key: `a:{${organizationId}}:org`, limit: limits.orgRequestsPerHour, windowMs: HOUR_MS },
    { key: `a:{${organizationId}}:ip:${ip}`, limit: limits.ipRequestsPerDay, windowMs: DAY_MS },
  ];
}

export function createAssistantGate(deps: GateDeps): AssistantGate {
  // Each organization's chargeable credits after its last charge on this process.
  const headroom = new LRUCache<string, number>({ max: HEADROOM_ENTRIES });
  // Keyed by the context, not `c.req.raw`: the body-limit middleware swaps the raw request for a
  // wrapped one when a body comes without Content-Length.
  const states = new WeakMap<Context, GateState>();
  const stateOf = (c: Context): GateState => {
    let state = states.get(c);
    if (!state) {
      state = { headers: {} };
      states.set(c, state);
    }
    return state;
  };

  const refund = async (c: Context<AppEnv>, state: GateState): Promise<void> => {
    const charged = state.charged;
    if (!charged) return;
    state.charged = undefined;
    await refundCredits(deps.storage, charged).catch((error: unknown) =>
      c.get('logger').error({ err: error, requestId: charged.requestId }, 'refund failed'),
    );
  };

  return {
    wrap: async (c, next) => {
      const state = stateOf(c);
      await next();
      if (state.sent) return;
      if (state.charged && c.res.status >= 400) await refund(c, state);
      const origin = requestHeader(c, 'Origin');
      if (origin !== undefined && state.origin === undefined) {
        // Failed before the origin check (bad key, unknown domain): answer as the preflight did, so
        // the page can read why.
        const site = await deps.tenancy.siteByDomain(c.req.param('domain') ?? '').catch(() => undefined);
        if (originAllowed(site, origin)) state.origin = origin;
      }
      const headers = gateHeaders(state);
      try {
        for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
      } catch {
        // Immutable headers (a fetched Response): copy into a new one.
        c.res = new Response(c.res.body, c.res);
        for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
      }
    },

    streamHeaders: (c) => {
      const state = stateOf(c);
      state.sent = true;
      return gateHeaders(state);
    },

    preflight: async (c) => {
      const origin = requestHeader(c, 'Origin');
      if (!origin) throw new DocentError('invalid_request', 'A CORS preflight needs an Origin header');
      const domain = c.req.param('domain') ?? '';
      // Unknown domains get the permissive answer: the real request then says 401 or 404, and a
      // preflight cannot be used to probe which domains exist.
      const site = await deps.tenancy.siteByDomain(domain);
      if (!originAllowed(site, origin)) throw originForbidden(origin, domain);
      return preflightResponse(c, origin);
    },

    admit: async (c, caller) => {
      const state = stateOf(c);
      const origin = requestHeader(c, 'Origin');
      if (origin !== undefined && !originAllowed(caller.site, origin)) {
        state.origin = null;
        throw originForbidden(origin, caller.site.domain);
      }
      state.origin = origin ?? null;
      const organizationId = caller.site.organization_id;
      const plan = (await deps.tenancy.organizationPlan(organizationId)) ?? FALLBACK_PLAN;
      state.plan = plan;
      const windows = assistantWindows(organizationId, clientIp(c, deps.trustProxy), plan);
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
      await noteKeyUsed(deps.storage, caller.key).catch((error: unknown) =>
        c.get('logger').warn({ err: error }, 'recording key use failed'),
      );
    },

    charge: async (c, caller, within) => {
      const state = stateOf(c);
      const requestId = c.get('requestId');
      const organizationId = caller.site.organization_id;
      let left: number | undefined;
      const result = await withWriteUnit(
        deps.storage,
        { lockOrganizationId: organizationId },
        async (unit) => {
          const charge = await chargeWithin(unit, {
            organizationId,
            siteId: caller.site.id,
            requestId,
            fresh: true,
            ...(state.plan ? { plan: state.plan } : {}),
          });
          left = charge.headroom;
          return within(unit);
        },
      ).catch((error: unknown) => {
        if (error instanceof DocentError && error.code === 'credits_exhausted')
          headroom.set(organizationId, 0);
        throw error;
      });
      if (left !== undefined) headroom.set(organizationId, left);
      state.charged = { organizationId, requestId };
      return result;
    },

    mayAnswerBeforeCharged: (c, caller) => {
      const plan = stateOf(c).plan;
      if (plan?.overageEnabled && plan.overageCap === null) return true;
      return (headroom.get(caller.site.organization_id) ?? 0) >= EARLY_ANSWER_HEADROOM;
    },

    settle: async (c, outcome, within) => {
      const state = stateOf(c);
      const charged = state.charged;
      // Answered: nothing to undo, and the wrapper must not refund either.
      state.charged = undefined;
      const refunding =
        charged !== undefined && outcome.text === '' && (outcome.error !== undefined || outcome.aborted);
      for (let attempt = 0; ; attempt++) {
        try {
          await withWriteUnit(
            deps.storage,
            refunding ? { lockOrganizationId: charged.organizationId } : {},
            async (unit) => {
              if (refunding) await refundWithin(unit, charged);
              await within(unit);
            },
          );
          return;
        } catch (error) {
          // Two answers appended to one thread at once: the loser takes the next sequence number.
          if (attempt < MAX_SETTLE_ATTEMPTS && isUniqueViolation(error)) continue;
          c.get('logger').error({ err: error, requestId: c.get('requestId') }, 'storing the answer failed');
          if (refunding) await refund(c, { ...state, charged });
          return;
        }
      }
    },
  };
}
