import type { Storage } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { createApiKey } from '../tenancy/api-keys.ts';
import { createOrganization, type Organization } from '../tenancy/organizations.ts';
import { type PlanInput, upsertPlan } from '../tenancy/plans.ts';
import { createSite, type Site } from '../tenancy/sites.ts';

/** Test and benchmark fixture: an organization on its own plan, with one site and both kinds of key. */
export interface Tenant {
  organization: Organization;
  site: Site;
  assistantKey: string;
  adminKey: string;
}

export async function createTenant(
  storage: Storage,
  input: { domain: string; plan?: PlanInput; allowedOrigins?: string[] },
): Promise<Tenant> {
  const planId = newId('plan');
  await upsertPlan(storage, planId, input.plan ?? {});
  const organization = await createOrganization(storage, { name: input.domain, plan: planId });
  const site = await createSite(storage, {
    organizationId: organization.id,
    domain: input.domain,
    ...(input.allowedOrigins ? { allowedOrigins: input.allowedOrigins } : {}),
  });
  const assistant = await createApiKey(storage, {
    organizationId: organization.id,
    siteId: site.id,
    kind: 'assistant',
  });
  const admin = await createApiKey(storage, { organizationId: organization.id, siteId: null, kind: 'admin' });
  return { organization, site, assistantKey: assistant.key, adminKey: admin.key };
}

export function userMessage(text: string) {
  return {
    id: `u_${Math.random().toString(36).slice(2)}`,
    role: 'user',
    content: text,
    parts: [{ type: 'text', text }],
  };
}

export function askBody(text = 'How do I configure the database?') {
  return { messages: [userMessage(text)], fp: 'anonymous' };
}

/** Sends one assistant request and reads the whole body (a stream for 200, a JSON error otherwise). */
export async function ask(
  baseUrl: string,
  domain: string,
  key: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${baseUrl}/v1/assistant/${domain}/message`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, ...init.headers },
    body: JSON.stringify(init.body ?? askBody()),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

export function countStatuses(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
