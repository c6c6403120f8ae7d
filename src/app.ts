import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import type { Logger } from 'pino';
import type { ModelProvider } from './assistant/model-provider.ts';
import type { AppEnv } from './http/app-env.ts';
import { handleError, handleNotFound } from './http/error-handler.ts';
import { assistantMessageRoute } from './http/routes/assistant-message.ts';
import { healthzRoute, readyzRoute } from './http/routes/health.ts';
import type { SiteSearch } from './search/site-search.ts';
import type { Storage } from './storage/database.ts';

export interface AppDeps {
  storage: Storage;
  search: SiteSearch;
  logger: Logger;
  /** The model that writes answers; the built-in answerer when not given. */
  modelProvider?: ModelProvider;
}

/** Builds the HTTP app. No side effects: no listening, no database set-up, no environment reads. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requestId({ headerName: 'X-Request-Id' }));
  app.use(async (c, next) => {
    c.set('logger', deps.logger.child({ requestId: c.get('requestId') }));
    await next();
  });
  app.onError(handleError);
  app.notFound(handleNotFound);

  app.route('/', healthzRoute());
  app.route('/', readyzRoute(deps.storage));
  app.route('/', assistantMessageRoute(deps));
  return app;
}
