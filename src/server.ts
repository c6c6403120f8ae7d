import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { destination, type Logger, pino } from 'pino';
import { startRetentionJob } from './analytics/retention.ts';
import { createApp } from './app.ts';
import type { ModelProvider } from './assistant/model-provider.ts';
import { createModelProvider, modelInUse } from './assistant/providers/create-model-provider.ts';
import { formatModelSpec } from './assistant/providers/model-spec.ts';
import { updateSiteModelSettings } from './assistant/providers/site-model-settings.ts';
import { RunningAnswers } from './assistant/running-answers.ts';
import { logSdkWarnings } from './assistant/sdk-warnings.ts';
import { type Config, resolveDataDir } from './config.ts';
import { answerClientErrors, answerUnreadableRequest, refuseMissingHost } from './http/client-errors.ts';
import { closeIdlePageWorkers } from './ingest/page-loader-pool.ts';
import { MemoryRateLimitStore } from './limits/memory-rate-limit-store.ts';
import type { RateLimitStore } from './limits/rate-limit-store.ts';
import { createMetrics } from './metrics/metrics.ts';
import { startInstanceLifecycle } from './recovery/instance-lifecycle.ts';
import { closeIdleIndexBuildWorker } from './search/build-site-index.ts';
import { embeddingModelsFor } from './search/embeddings/embedding-model.ts';
import { SiteSearch } from './search/site-search.ts';
import { type GitPollerOptions, startGitPoller } from './sources/git-poller.ts';
import { DatabaseFromNewerVersionError, openStorage, ping, type Storage } from './storage/database.ts';
import { cannotOpenDatabase } from './storage/database-open-problem.ts';
import { OutageLog } from './storage/outage-log.ts';
import { createInProcessResumableStreams } from './streams/in-process-resumable-streams.ts';
import type { RedisPubSub } from './streams/redis-pub-sub.ts';
import { createResumableStreams } from './streams/resumable-streams.ts';
import { mintDemoPageKey } from './tenancy/demo-page-key.ts';
import { IngestionRunner } from './tenancy/ingestion-runner.ts';
import { DEMO_DOMAIN, DEMO_STARTER_QUESTIONS, demoBanner, seedDemo } from './tenancy/seed-demo.ts';
import { defaultWidgetDir, loadWidgetAssets } from './widget-assets/widget-asset.ts';

export interface RunningServer {
  port: number;
  storage: Storage;
  /** What a new user is told once the server listens (the demo site, page and console); '' for none. */
  banner: string;
  /**
   * Shuts down gracefully: readiness turns 503 and no new connection is accepted at once; answers in
   * progress run on for up to `graceMs` (`DOCENT_SHUTDOWN_GRACE_MS`, default 30 s), then the rest end
   * as if their readers had left (stored `aborted`) and every connection is closed.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** After the grace period, how long ended answers get to store themselves before connections are cut. */
const SETTLE_AFTER_GRACE_MS = 5_000;
/** While shutting down, how often connections left idle by a finished response are closed. */
const IDLE_SWEEP_MS = 100;

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel });
}

/**
 * The process's logger on standard output, and `print` for human-readable text (the first-start
 * banner) written through the same stream: pino writes asynchronously, so a plain
 * `process.stdout.write` lands among the log lines written before it. `flush` writes out what is
 * pending, so that a line written to stderr next comes after them.
 */
export function createStdoutLogger(config: Pick<Config, 'logLevel'>): {
  logger: Logger;
  print: (text: string) => void;
  flush: () => void;
} {
  const stdout = destination(1);
  return {
    logger: pino({ level: config.logLevel }, stdout),
    print: (text) => void stdout.write(text),
    flush: () => stdout.flushSync(),
  };
}

/** The server could not start listening; `banner` holds what a first start seeded (its key is shown once). */
export class ServerStartError extends Error {
  override name = 'ServerStartError';

  constructor(
    message: string,
    readonly banner: string,
    /** The port was taken: each caller says how to choose another (`PORT`, `--port`). */
    readonly portInUse = false,
  ) {
    super(message);
  }
}

/** Opens storage (migrating it), seeds the demo site on an empty database, and serves HTTP. */
export interface ServerOptions {
  logger?: Logger;
  modelProvider?: ModelProvider;
  /** Key prefix in Redis (tests give each run its own). */
  redisKeyPrefix?: string;
  /** How long a v2 answer outlives a reader who left, waiting to be resumed (tests shorten it). */
  resumeGraceMs?: number;
  /** The built widget's folder; `dist/widget/` when not given (tests build their own). */
  widgetDir?: string;
  /** How often git sources are polled (tests shorten it; servers keep the defaults). */
  gitPoll?: GitPollerOptions;
}

function startError(error: NodeJS.ErrnoException, port: number, host: string, banner: string) {
  return error.code === 'EADDRINUSE'
    ? new ServerStartError(`port ${port} on ${host} is in use`, banner, true)
    : new ServerStartError(error.message, banner);
}

/**
 * Fails before anything is written when the port is taken: a second start on a busy port seeded the
 * demo, registered an instance and made a new demo-page key, revoking the one the running server's
 * page was using. (A port taken between this check and the real listen still fails there.)
 */
async function ensurePortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(startError(error, port, host, '')));
    // Not exclusive: in a cluster worker the real listen shares the primary's socket, and so does this.
    probe.listen({ port, host }, () => probe.close(() => resolve()));
  });
}

/** Redis not reachable at start (`REDIS_URL`): said in one line, the address without its password. */
function redisStartError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  return new ServerStartError(
    error.message.startsWith('Cannot reach Redis') ? error.message : `Cannot reach Redis: ${error.message}`,
    '',
  );
}

/**
 * Redis when `REDIS_URL` is set (several processes share counters), else counters in this process.
 * The Redis client (about 10 MB of memory) is loaded only when there is a Redis.
 */
export async function openRateLimitStore(
  config: Pick<Config, 'redisUrl'>,
  keyPrefix?: string,
): Promise<RateLimitStore> {
  if (config.redisUrl === null) return new MemoryRateLimitStore();
  const { RedisRateLimitStore } = await import('./limits/redis-rate-limit-store.ts');
  return RedisRateLimitStore.connect(config.redisUrl, keyPrefix === undefined ? {} : { keyPrefix });
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  await ensurePortFree(config.port, config.host);
  const logger = options.logger ?? createLogger(config);
  logSdkWarnings(logger);
  const storage = await openStorage(config.databaseUrl, { backgroundCheckpoints: true }).catch(
    (error: unknown) => {
      // A setting of the operator's (no such server, login or file; a newer Docent's database) in one
      // line, not a stack.
      if (error instanceof DatabaseFromNewerVersionError) throw new ServerStartError(error.message, '');
      const cannotOpen = cannotOpenDatabase(config.databaseUrl, error);
      throw cannotOpen === null ? error : new ServerStartError(cannotOpen, '');
    },
  );
  logger.info({ database: storage.describe }, 'storage ready');
  const demo = config.seedDemo ? await seedDemo(storage, config, logger) : null;
  if (demo !== null)
    await updateSiteModelSettings(storage, demo.siteId, { starterQuestions: [...DEMO_STARTER_QUESTIONS] });
  const widget = loadWidgetAssets(options.widgetDir ?? defaultWidgetDir());
  if (!widget) logger.warn('the widget is not built (npm run build): /widget.js and the demo page are off');
  const demoKey = config.demoPage && widget ? await mintDemoPageKey(storage, DEMO_DOMAIN) : undefined;
  // The provider package loads on the first call.
  const embeddings = embeddingModelsFor(config.embeddings);
  if (embeddings !== null) logger.info({ embeddings: embeddings.query.id }, 'semantic retrieval on');
  const search = new SiteSearch(storage, {
    embeddings: embeddings?.query ?? null,
    logger,
    cacheBytes: config.indexCacheBytes,
  });
  logger.info({ indexCacheMb: Math.round(config.indexCacheBytes / 1_048_576) }, 'search index cache');
  // The model configuration is logged without its keys.
  logger.info({ model: formatModelSpec(config.model.default) }, 'answer model');
  let rateLimitStore: RateLimitStore;
  try {
    rateLimitStore = await openRateLimitStore(config, options.redisKeyPrefix);
  } catch (error) {
    await storage.close();
    throw redisStartError(error);
  }
  logger.info({ rateLimitStore: rateLimitStore.kind }, 'rate limits ready');
  // Resumable v2 answers: shared through Redis when there is one, else kept in this process.
  let redisPubSub: RedisPubSub | undefined;
  try {
    redisPubSub =
      config.redisUrl === null
        ? undefined
        : await (await import('./streams/redis-pub-sub.ts')).RedisPubSub.connect(config.redisUrl);
  } catch (error) {
    await rateLimitStore.close();
    await storage.close();
    throw redisStartError(error);
  }
  // Several processes share answers in flight through Redis (the `resumable-stream` package); one
  // process keeps them itself.
  const graceMs = options.resumeGraceMs === undefined ? {} : { graceMs: options.resumeGraceMs };
  const resumableStreams = redisPubSub
    ? createResumableStreams(redisPubSub, { keyPrefix: `${options.redisKeyPrefix ?? ''}docent`, ...graceMs })
    : createInProcessResumableStreams(graceMs);
  // Registered before serving, so everything this process charges or ingests is recorded under a live
  // instance; the first recovery (a previous run's crash) is done before the first request.
  // One outage log for the database, told by the routes and the background jobs alike.
  const databaseOutage = new OutageLog('database', () => ping(storage), logger);
  const lifecycle = await startInstanceLifecycle(storage, logger, { outage: databaseOutage });
  const gitStopping = new AbortController();
  const ingestions = new IngestionRunner(
    logger,
    lifecycle.instance.id,
    {
      dataDir: resolveDataDir(config.git.dataDir, config.databaseUrl),
      env: config.git.env,
      signal: gitStopping.signal,
      localRoot: config.docsRoot,
      serverCredentialsForApiSources: config.git.serverCredentialsForApiSources,
    },
    embeddings?.ingestion ?? null,
  );
  const retention = startRetentionJob(storage, logger, { outage: databaseOutage });
  const gitPoller = startGitPoller({ storage, ingestions, logger, outage: databaseOutage }, options.gitPoll);
  let draining = false;
  const stopping = new AbortController();
  const running = new RunningAnswers();
  const app = createApp({
    instanceId: lifecycle.instance.id,
    databaseOutage,
    shutdown: { draining: () => draining, stopping: stopping.signal, running },
    // Collected only where they can be read.
    ...(config.metricsToken === null
      ? {}
      : { metrics: createMetrics(storage, () => search.cacheStats()), metricsToken: config.metricsToken }),
    storage,
    search,
    logger,
    rateLimitStore,
    trustProxy: config.trustProxy,
    docsRoot: config.docsRoot,
    tenancyCacheMs: config.tenancyCacheMs,
    searchSteps: config.model.searchSteps,
    publicUrl: config.publicUrl,
    resumableStreams,
    ingestions,
    widget,
    demoPage: demoKey === undefined ? null : { domain: DEMO_DOMAIN, key: demoKey },
    modelProvider: options.modelProvider ?? createModelProvider(config.model, { logger }),
    // Told only when the model provider is the one built from this configuration.
    ...(options.modelProvider === undefined
      ? { modelInUse: (siteModel: string | null) => modelInUse(config.model, siteModel) }
      : {}),
  });
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const server = await new Promise<HttpServer>((resolve, reject) => {
    // @hono/node-server's serve(), with its error handler set: without one, a request it cannot turn
    // into a Request (a Host header that is no host, a backslash in the path) got an empty text/plain 400.
    const listener = getRequestListener(app.fetch, {
      hostname: config.host,
      errorHandler: answerUnreadableRequest,
    });
    // Node's own Host check is off: refuseMissingHost answers it with the JSON error instead. A request
    // still arriving after `requestTimeoutMs` is answered 408 (client-errors.ts): Node's default let a
    // client that sent its headers and a trickle of body hold the connection for 300 s. Node checks
    // every `connectionsCheckingInterval`, so the refusal comes up to that much later.
    const requestTimeout = config.requestTimeoutMs;
    const serverOptions = {
      requireHostHeader: false,
      requestTimeout,
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: Math.min(5_000, Math.ceil(requestTimeout / 4)),
    };
    const s = createHttpServer(serverOptions, (request, response) => {
      if (refuseMissingHost(request, response)) return;
      // Host names are case-insensitive, but @hono/node-server (1.19) compares the Host header with the
      // URL it parsed from it, which lowercases: `Host: LOCALHOST:3000` was refused as invalid.
      const host = request.headers.host;
      if (host !== undefined && host !== host.toLowerCase()) request.headers.host = host.toLowerCase();
      return listener(request, response);
    });
    s.listen(config.port, config.host, () => resolve(s));
    // A port taken since ensurePortFree ends the start, not the process with an unhandled event. The
    // demo's key, shown once, was made already: it goes with the error, or no later start would show it.
    s.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        startError(error, config.port, config.host, demoBanner(`http://${host}:${config.port}`, demo, false)),
      );
    });
  });
  answerClientErrors(server);
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, host: config.host }, 'docent listening');
  return {
    port,
    storage,
    banner: demoBanner(`http://${host}:${port}`, demo, demoKey !== undefined, config.databaseUrl),
    close: async (options = {}) => {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive sockets would hold close() open until they time out, and a connection becomes
      // idle each time an answer on it ends: closed as they come.
      const closeIdle = () => {
        if ('closeIdleConnections' in server) server.closeIdleConnections();
      };
      closeIdle();
      const idleSweep = setInterval(closeIdle, IDLE_SWEEP_MS);
      void closed.finally(() => clearInterval(idleSweep));
      const graceMs = options.graceMs ?? config.shutdownGraceMs;
      // Connections, and answers whose readers left (a v2 answer goes on for resuming).
      const finished = Promise.all([closed, running.settled()]).then(() => {});
      if (!(await settlesWithin(finished, graceMs))) {
        logger.warn({ graceMs }, 'shutdown grace period over: ending the answers still running');
        stopping.abort();
        if (!(await settlesWithin(finished, SETTLE_AFTER_GRACE_MS)) && 'closeAllConnections' in server)
          server.closeAllConnections();
        await closed;
        await settlesWithin(running.settled(), SETTLE_AFTER_GRACE_MS);
      }
      // No new fetches once shutting down, and those in progress stop (a clone that does not move would
      // hold the shutdown for git's 5-minute timeout); their jobs fail, the sites keep what they serve.
      // Ingestions past their fetch finish.
      await gitPoller.stop();
      gitStopping.abort();
      ingestions.cancelQueued();
      await ingestions.idle();
      retention.stop();
      databaseOutage.close();
      // Warm page workers never keep a process alive, but a server that embeds Docent lives on.
      await closeIdlePageWorkers();
      await closeIdleIndexBuildWorker();
      await lifecycle.stop();
      await rateLimitStore.close();
      await redisPubSub?.close();
      await storage.close();
    },
  };
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
