import type { Logger } from 'pino';

/** Hono context variables every route can rely on. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
  };
}
