import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Logger, pino } from 'pino';
import { createApp } from './app.ts';
import type { ModelProvider } from './assistant/model-provider.ts';
import type { Config } from './config.ts';
import { SiteSearch } from './search/site-search.ts';
import { openStorage, type Storage } from './storage/database.ts';
import { seedDemo } from './tenancy/seed-demo.ts';

export interface RunningServer {
  port: number;
  storage: Storage;
  close(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel });
}

/** Opens storage (migrating it), seeds the demo site on an empty database, and serves HTTP. */
export interface ServerOptions {
  logger?: Logger;
  modelProvider?: ModelProvider;
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config);
  const storage = await openStorage(config.databaseUrl);
  logger.info({ database: storage.describe }, 'storage ready');
  if (config.seedDemo) await seedDemo(storage, config, logger);
  const search = new SiteSearch(storage, { publicUrl: config.publicUrl });
  const app = createApp({
    storage,
    search,
    logger,
    ...(options.modelProvider ? { modelProvider: options.modelProvider } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, host: config.host }, 'docent listening');
  return {
    port,
    storage,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive sockets would otherwise hold close() open until they time out.
        if ('closeIdleConnections' in server) server.closeIdleConnections();
      });
      await storage.close();
    },
  };
}
