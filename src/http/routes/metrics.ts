import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { Metrics } from '../../metrics/metrics.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';

/**
 * `GET /metrics`: Prometheus text format, for `Authorization: Bearer <DOCENT_METRICS_TOKEN>` only
 * (metrics name routes, volumes and timings: not for the public). Mounted only when a token is set.
 */
export function metricsRoute(deps: { metrics: Metrics; token: string }): Hono<AppEnv> {
  const expected = Buffer.from(`Bearer ${deps.token}`);
  return new Hono<AppEnv>().get('/metrics', async (c) => {
    const given = Buffer.from(c.req.header('Authorization') ?? '');
    // Compared in constant time, so the token cannot be guessed a byte at a time.
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new DocentError('unauthorized', 'A valid metrics token is required');
    const text = await deps.metrics.registry.metrics();
    return c.body(text, 200, { 'Content-Type': deps.metrics.registry.contentType });
  });
}
