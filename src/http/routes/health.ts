import { Hono } from 'hono';
import { ping, type Storage } from '../../storage/database.ts';
import type { OutageLog } from '../../storage/outage-log.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';

/** Liveness: the process answers. */
export function healthzRoute(): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/healthz', (c) => c.json({ status: 'ok' }));
}

/**
 * Readiness: the database answers, and the server is not shutting down (`draining`), so a load
 * balancer stops sending it requests as soon as a shutdown begins.
 */
export function readyzRoute(storage: Storage, draining: () => boolean, outage?: OutageLog): Hono<AppEnv> {
  return new Hono<AppEnv>().get('/readyz', async (c) => {
    if (draining()) throw new DocentError('unavailable', 'Shutting down');
    try {
      await ping(storage);
    } catch (error) {
      // A balancer probes every few seconds: one line per outage, not a stack per probe.
      if (outage) outage.failed(error, { requestId: c.get('requestId') });
      else c.get('logger').warn({ err: error }, 'readiness check failed');
      throw new DocentError('unavailable', 'Database is not reachable');
    }
    return c.json({ status: 'ok', database: storage.dialect });
  });
}
