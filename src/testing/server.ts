import { pino } from 'pino';
import { inject } from 'vitest';
import type { ModelProvider } from '../assistant/model-provider.ts';
import { loadConfig } from '../config.ts';
import { type RunningServer, startServer } from '../server.ts';
import type { DialectName } from '../storage/database.ts';
import { createTemporaryTestDatabase } from './databases.ts';

export interface TestServer extends RunningServer {
  baseUrl: string;
  /** The server's database, for a second handle that outlives the server's own. */
  databaseUrl: string;
  stop(): Promise<void>;
}

/** A real HTTP server on a loopback port over a fresh database of the given dialect. */
export async function startTestServer(
  dialect: DialectName,
  options: {
    modelProvider?: ModelProvider;
    searchSteps?: number;
    resumeGraceMs?: number;
    /** Share rate limits and resumable streams through this Redis (a prefix of its own per server). */
    redisUrl?: string;
    redisKeyPrefix?: string;
    /** Seed the demo site from the bundled docs, as a first `npm start` does (its demo page on). */
    seedDemo?: boolean;
    /** `DOCENT_REQUEST_TIMEOUT_MS`: how long a client has to send its whole request. */
    requestTimeoutMs?: number;
  } = {},
): Promise<TestServer> {
  const database = await createTemporaryTestDatabase(dialect);
  const base = loadConfig({});
  const config = {
    ...base,
    model: { ...base.model, searchSteps: options.searchSteps ?? base.model.searchSteps },
    databaseUrl: database.url,
    port: 0,
    host: '127.0.0.1',
    seedDemo: options.seedDemo ?? false,
    requestTimeoutMs: options.requestTimeoutMs ?? base.requestTimeoutMs,
    ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
  };
  const server = await startServer(config, {
    logger: pino({ level: 'silent' }),
    widgetDir: inject('widgetDir'),
    ...(options.modelProvider ? { modelProvider: options.modelProvider } : {}),
    ...(options.resumeGraceMs === undefined ? {} : { resumeGraceMs: options.resumeGraceMs }),
    ...(options.redisKeyPrefix === undefined ? {} : { redisKeyPrefix: options.redisKeyPrefix }),
  });
  // Closed once, whether a test closes it itself (to test shutdown) or leaves it to `stop`.
  let closing: Promise<void> | undefined;
  const close = (closeOptions?: { graceMs?: number }) => {
    closing ??= server.close(closeOptions);
    return closing;
  };
  return {
    ...server,
    close,
    baseUrl: `http://127.0.0.1:${server.port}`,
    databaseUrl: database.url,
    stop: async () => {
      await close();
      await database.remove();
    },
  };
}
