import type { MiddlewareHandler } from 'hono';
import { newId } from '../storage/ids.ts';
import type { AppEnv } from './app-env.ts';

/**
 * Every request gets a server-made id. A client-sent `X-Request-Id` is not adopted: the credit ledger
 * is keyed by request id, and an id a client could repeat would let it replay a charge-free answer.
 * The client's value is kept in the logs for correlation. Time-ordered like every id (storage/ids.ts).
 */
export function serverRequestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = newId('req');
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
  };
}
