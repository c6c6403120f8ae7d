import { Hono } from 'hono';
import { ping, type Storage } from '../../storage/database.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';

/** Liveness: the process answers. */
export function healthzRoute(): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/healthz', (c) => c.json({ status: 'ok' }));
}

/** Readiness: the database answers too. */
export function readyzRoute(storage: Storage): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/readyz', async (c) => {
    try {
      await ping(storage);
    } catch (error) {
      c.get('logger').warn({ err: error }, 'readiness check failed');
      throw new DocentError('unavailable', 'Database is not reachable');
    }
    return c.json({ status: 'ok', database: storage.dialect });
  });
}
