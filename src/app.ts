import { Hono } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import { createAnswerService } from './assistant/answer-question.ts';
import { builtinModelProvider, type ModelInUse, type ModelProvider } from './assistant/model-provider.ts';
import type { RunningAnswers } from './assistant/running-answers.ts';
import type { TrustProxy } from './config.ts';
import type { AppEnv } from './http/app-env.ts';
import { createAssistantAccess } from './http/assistant-access.ts';
import { createErrorHandler, notFoundOrWrongMethod } from './http/error-handler.ts';
import { requestHeader } from './http/node-request.ts';
import { serverRequestId } from './http/request-id.ts';
import { adminApi } from './http/routes/admin/admin-api.ts';
import { agentApiRoute } from './http/routes/agent-api.ts';
import { assistantConfigRoute, assistantFeedbackRoute } from './http/routes/assistant-feedback.ts';
import { assistantMessageRoute } from './http/routes/assistant-message.ts';
import { assistantMessageV2Route } from './http/routes/assistant-message-v2.ts';
import { consoleRoutes } from './http/routes/console/console-routes.ts';
import { demoHomeRoute } from './http/routes/demo-home.ts';
import { gitWebhookRoute } from './http/routes/git-webhook.ts';
import { healthzRoute, readyzRoute } from './http/routes/health.ts';
import { llmsTxtRoute } from './http/routes/llms-txt.ts';
import { mcpRoute } from './http/routes/mcp.ts';
import { mcpServerCardRoute } from './http/routes/mcp-server-card.ts';
import { metricsRoute } from './http/routes/metrics.ts';
import { openApiRoute } from './http/routes/openapi.ts';
import { pageViewRoute } from './http/routes/page-view.ts';
import { widgetScriptRoute } from './http/routes/widget-script.ts';
import { watchedRateLimitStore } from './http/watched-rate-limit-store.ts';
import { createCreditGuard } from './limits/credit-guard.ts';
import { MemoryRateLimitStore } from './limits/memory-rate-limit-store.ts';
import type { RateLimitStore } from './limits/rate-limit-store.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { SiteSearch } from './search/site-search.ts';
import { ping, type Storage } from './storage/database.ts';
import { OutageLog } from './storage/outage-log.ts';
import { createInProcessResumableStreams } from './streams/in-process-resumable-streams.ts';
import type { ResumableStreams } from './streams/resumable-streams.ts';
import { IngestionRunner } from './tenancy/ingestion-runner.ts';
import { DEFAULT_TENANCY_CACHE_MS, TenancyCache } from './tenancy/tenancy-cache.ts';
import type { WidgetAssets } from './widget-assets/widget-asset.ts';

export interface AppDeps {
  storage: Storage;
  search: SiteSearch;
  logger: Logger;
  /** The model that writes answers; the built-in answerer when not given. */
  modelProvider?: ModelProvider;
  /**
   * Which model writes a site's answers on this server, and why not the site's own setting (built with
   * `modelProvider` from the same configuration); absent: not told (the owner sees only the setting).
   */
  modelInUse?: (siteModel: string | null) => ModelInUse;
  /** Rate-limit counters; an in-process store when not given (one process only). */
  rateLimitStore?: RateLimitStore;
  /** Whether `X-Forwarded-For` names the client (see config); false when not given. */
  trustProxy?: TrustProxy;
  /** The folder the admin API may ingest from; null/absent: none. */
  docsRoot?: string | null;
  /** Background ingestions started over the admin API. */
  ingestions?: IngestionRunner;
  /** How long key, site and plan rows are reused by the assistant route (0: not cached). */
  tenancyCacheMs?: number;
  /** Searches a real model may run itself through the `search` tool per answer (0: no tool). */
  searchSteps?: number;
  /** Docent's public address for links to its page view; null/absent: the address a request came to. */
  publicUrl?: string | null;
  /** Where v2 answers are kept for resuming; in this process when not given. */
  resumableStreams?: ResumableStreams;
  /**
   * This server's registered instance (src/recovery/instance-lifecycle.ts), under which answers are
   * recorded in flight for crash recovery; null/absent: not recorded.
   */
  instanceId?: string | null;
  /**
   * The database's outage log, shared with the server's background jobs so an outage is told once
   * whoever meets it; absent: the app's own.
   */
  databaseOutage?: OutageLog;
  /**
   * The server's shutdown: `draining` once it has begun (readiness 503, connections closed after each
   * response), `stopping` aborted when its grace period is over (answers still running end), `running`
   * the answers it waits for, those whose readers left included. Absent: never draining.
   */
  shutdown?: { draining(): boolean; stopping: AbortSignal; running?: RunningAnswers };
  /** Prometheus metrics, served at `/metrics` to `metricsToken`; absent: not collected. */
  metrics?: Metrics;
  metricsToken?: string | null;
  /** The reader's widget scripts (`/widget.js`); absent: not built, `/widget.js` answers 503. */
  widget?: WidgetAssets | null;
  /** The demo site and a key for its pages' widget (`/`); absent: no demo page. */
  demoPage?: { domain: string; key: string } | null;
}

/** Builds the HTTP app. No side effects: no listening, no database set-up, no environment reads. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  // Each shared service gets one "unreachable" and one "reachable again" line per outage, whichever
  // route meets it (see outage-log.ts).
  const databaseOutage =
    deps.databaseOutage ?? new OutageLog('database', () => ping(deps.storage), deps.logger);
  const shared = deps.rateLimitStore;
  const store = shared
    ? // A hit with no windows counts nothing: it only asks the store to answer.
      watchedRateLimitStore(shared, new OutageLog('rate-limit store', () => shared.hit([]), deps.logger))
    : new MemoryRateLimitStore();
  const trustProxy = deps.trustProxy ?? false;
  const ingestions = deps.ingestions ?? new IngestionRunner(deps.logger);
  const tenancy = new TenancyCache(deps.storage, deps.tenancyCacheMs ?? DEFAULT_TENANCY_CACHE_MS);
  // A finished ingestion moves the site's index generation, which the cached site row carries.
  ingestions.onSettled(() => tenancy.clear());
  const metrics = deps.metrics;
  if (metrics) ingestions.onSettled((outcome) => metrics.ingested(outcome));
  const answers = createAnswerService({
    storage: deps.storage,
    search: deps.search,
    credits: createCreditGuard(deps.storage, deps.logger),
    modelProvider: deps.modelProvider ?? builtinModelProvider,
    searchSteps: deps.searchSteps ?? 0,
    publicUrl: deps.publicUrl ?? null,
    instanceId: deps.instanceId ?? null,
    ...(deps.shutdown ? { stopping: deps.shutdown.stopping } : {}),
    ...(deps.shutdown?.running ? { running: deps.shutdown.running } : {}),
    ...(deps.metrics ? { observe: deps.metrics.answered } : {}),
  });
  const access = createAssistantAccess({ storage: deps.storage, tenancy, store, trustProxy });
  const app = new Hono<AppEnv>();
  app.use(serverRequestId());
  app.use(async (c, next) => {
    const clientRequestId = requestHeader(c, 'X-Request-Id')?.slice(0, 200);
    c.set(
      'logger',
      deps.logger.child({ requestId: c.get('requestId'), ...(clientRequestId ? { clientRequestId } : {}) }),
    );
    await next();
  });
  if (metrics) {
    app.use(async (c, next) => {
      const started = performance.now();
      await next();
      // The route pattern, not the path: labels stay few whatever clients request.
      const matched = routePath(c);
      const route =
        matched === '/*' && (c.res.status === 404 || c.res.status === 405) ? '(unmatched)' : matched;
      metrics.request(c.req.method, route, c.res.status, (performance.now() - started) / 1000);
    });
  }
  app.onError(createErrorHandler({ databaseOutage }));
  app.notFound(notFoundOrWrongMethod(app.routes));

  app.route('/', healthzRoute());
  if (metrics && deps.metricsToken) app.route('/', metricsRoute({ metrics, token: deps.metricsToken }));
  const draining = deps.shutdown?.draining ?? (() => false);
  // While draining, each response closes its connection, so keep-alive clients reconnect elsewhere.
  app.use(async (c, next) => {
    await next();
    if (draining()) c.header('Connection', 'close');
  });
  app.route('/', readyzRoute(deps.storage, draining, databaseOutage));
  app.route('/', openApiRoute());
  const publicUrl = deps.publicUrl ?? null;
  const widget = deps.widget ?? null;
  app.route('/', widgetScriptRoute(widget));
  const demo =
    deps.demoPage && widget ? { ...deps.demoPage, widgetSrc: `/widget/${widget.launcher.hash}.js` } : null;
  app.route('/', demoHomeRoute({ storage: deps.storage, tenancy, demo }));
  app.route('/', pageViewRoute({ storage: deps.storage, tenancy, publicUrl, trustProxy, demo }));
  app.route('/', llmsTxtRoute({ storage: deps.storage, tenancy, publicUrl, trustProxy }));
  app.route('/', assistantMessageRoute({ answers, access, trustProxy }));
  const streams = deps.resumableStreams ?? createInProcessResumableStreams();
  app.route('/', assistantMessageV2Route({ answers, access, streams, trustProxy }));
  app.route('/', assistantFeedbackRoute({ storage: deps.storage, access }));
  app.route('/', assistantConfigRoute({ access }));
  app.route(
    '/',
    agentApiRoute({ storage: deps.storage, search: deps.search, access, trustProxy, publicUrl }),
  );
  app.route(
    '/',
    mcpRoute({ storage: deps.storage, search: deps.search, answers, access, trustProxy, publicUrl }),
  );
  app.route('/', mcpServerCardRoute({ tenancy, trustProxy, publicUrl }));
  app.route(
    '/',
    consoleRoutes({
      storage: deps.storage,
      search: deps.search,
      store,
      trustProxy,
      publicUrl,
      ingestions,
      tenancy,
      assets: widget,
      modelInUse: deps.modelInUse ?? null,
    }),
  );
  app.route('/', gitWebhookRoute({ storage: deps.storage, ingestions }));
  app.route(
    '/',
    adminApi({
      storage: deps.storage,
      search: deps.search,
      store,
      trustProxy,
      docsRoot: deps.docsRoot ?? null,
      ingestions,
      tenancy,
      modelInUse: deps.modelInUse ?? null,
    }),
  );
  return app;
}
