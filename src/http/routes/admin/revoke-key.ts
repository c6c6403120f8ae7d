import { Hono } from 'hono';
import { revokeApiKey } from '../../../tenancy/api-keys.ts';
import { listSites } from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { idParamSchema, keyJson, keySchema } from './schemas.ts';

export const revokeKeyOperation: Operation = {
  method: 'delete',
  path: '/v1/admin/keys/{id}',
  summary: 'Revoke a key (idempotent)',
  tags: ['Keys'],
  security: [{ adminKey: [] }],
  request: { params: idParamSchema },
  responses: {
    200: { description: 'The revoked key', ...jsonContent(keySchema) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function revokeKeyRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().delete('/v1/admin/keys/:id', validate('param', idParamSchema), async (c) => {
    const { id } = c.req.valid('param');
    const organizationId = c.get('admin').organization.id;
    const key = await revokeApiKey(deps.storage, organizationId, id);
    if (!key) throw new DocentError('not_found', `No key "${id}" in this organization`);
    const domains = new Map((await listSites(deps.storage, organizationId)).map((s) => [s.id, s.domain]));
    return c.json(keyJson(key, domains));
  });
}
