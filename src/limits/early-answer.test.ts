/**
 * An answer may start before its credit charge has committed when the charge cannot be refused
 * (credit-guard.ts `mayStartBeforeCharged`); when it is refused anyway, the answer stops.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinAnswerer } from '../assistant/builtin-answerer.ts';
import { createModelProvider } from '../assistant/providers/create-model-provider.ts';
import {
  type LoopbackServer,
  startLoopbackLlm,
  writeOpenAIStream,
} from '../assistant/providers/testing/loopback-llm.ts';
import { BUILTIN_MODEL_CONFIG } from '../config.ts';
import { dialects } from '../testing/databases.ts';
import { startTestServer, type TestServer } from '../testing/server.ts';
import { periodOf } from './credits.ts';
import { ask, createTenant } from './limits-fixtures.ts';

describe.each(dialects)('answers that start before their charge commits, on %s', (dialect) => {
  let server: TestServer;
  /** Ledger rows of the asking organization when the model was called, per request. */
  const ledgerAtCall: number[] = [];
  /** The abort signal each model call got. */
  const signals: AbortSignal[] = [];
  let hang = false;

  const ledgerRows = async (organizationId: string): Promise<number> =>
    (
      await server.storage.db
        .selectFrom('credit_ledger')
        .select('id')
        .where('organization_id', '=', organizationId)
        .execute()
    ).length;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      modelProvider: ({ site, sources, context }) => {
        const builtin = new BuiltinAnswerer({ sources, context });
        const model: LanguageModelV3 = {
          specificationVersion: 'v3',
          provider: 'test',
          modelId: 'observed',
          supportedUrls: {},
          doGenerate: (options) => builtin.doGenerate(options),
          doStream: async (options) => {
            ledgerAtCall.push(await ledgerRows(site.organization_id));
            if (options.abortSignal) signals.push(options.abortSignal);
            if (!hang) return builtin.doStream(options);
            // A model that has not answered yet when the charge is refused.
            const signal = options.abortSignal;
            const stream = new ReadableStream({
              start(controller) {
                // The refusal may come before the call (on PostgreSQL the two race): then it is aborted already.
                if (signal?.aborted) controller.error(signal.reason);
                else signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
              },
            });
            return { stream };
          },
        };
        return model;
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('starts a fresh organization’s first answer only after its charge has committed', async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'early-fresh',
      plan: { monthlyCredits: 1_000, overageEnabled: false },
    });
    ledgerAtCall.length = 0;
    const first = await ask(server.baseUrl, 'early-fresh', tenant.assistantKey);
    expect(first.status).toBe(200);
    expect(ledgerAtCall).toEqual([1]);
  });

  it('starts the answer while the charge commits once the organization is known to have credits to spare', async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'early-known',
      plan: { monthlyCredits: 1_000, overageEnabled: false },
    });
    ledgerAtCall.length = 0;
    expect((await ask(server.baseUrl, 'early-known', tenant.assistantKey)).status).toBe(200);
    const second = await ask(server.baseUrl, 'early-known', tenant.assistantKey);
    expect(second.status).toBe(200);
    expect(second.text).toContain('\nd:');
    // On SQLite the charge commits one event-loop turn later, so the model call is seen before it;
    // on PostgreSQL the two race, and only the outcome below is certain.
    if (dialect === 'sqlite') expect(ledgerAtCall).toEqual([1, 1]);
    expect(await ledgerRows(tenant.organization.id)).toBe(2);
  });

  it('starts at once where the plan’s overage is uncapped', async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'early-uncapped',
      plan: { monthlyCredits: 0, overageEnabled: true, overageCap: null },
    });
    ledgerAtCall.length = 0;
    const first = await ask(server.baseUrl, 'early-uncapped', tenant.assistantKey);
    expect(first.status).toBe(200);
    if (dialect === 'sqlite') expect(ledgerAtCall).toEqual([0]);
    expect(await ledgerRows(tenant.organization.id)).toBe(1);
  });

  it('stops an answer started early when the charge is refused: 402, the model aborted, nothing stored', async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'early-refused',
      plan: { monthlyCredits: 1_000, overageEnabled: false },
    });
    expect((await ask(server.baseUrl, 'early-refused', tenant.assistantKey)).status).toBe(200);
    // Another process spends the rest of the month's credits: this one still thinks there are plenty.
    await server.storage.db
      .updateTable('credit_balances')
      .set({ used: 1_000 })
      .where('organization_id', '=', tenant.organization.id)
      .where('period', '=', periodOf(new Date()))
      .execute();
    const threadsBefore = await server.storage.db.selectFrom('threads').select('id').execute();
    signals.length = 0;
    hang = true;
    try {
      const refused = await ask(server.baseUrl, 'early-refused', tenant.assistantKey);
      expect(refused.status).toBe(402);
      expect(JSON.parse(refused.text).error.code).toBe('credits_exhausted');
    } finally {
      hang = false;
    }
    // The model was called before the refusal (early) and told to stop by it.
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
    expect(await ledgerRows(tenant.organization.id)).toBe(1);
    expect(await server.storage.db.selectFrom('threads').select('id').execute()).toHaveLength(
      threadsBefore.length,
    );
    // Now known to be out of credits: the next request waits for its charge again (and is refused).
    ledgerAtCall.length = 0;
    expect((await ask(server.baseUrl, 'early-refused', tenant.assistantKey)).status).toBe(402);
    expect(ledgerAtCall).toEqual([]);
  });
});

describe.each(dialects)('an early charge behind a real provider, on %s', (dialect) => {
  let server: TestServer;
  let provider: LoopbackServer;

  beforeAll(async () => {
    provider = await startLoopbackLlm((req, res) =>
      writeOpenAIStream(res, { tokens: ['Answered [1].'] }, String(req.body.model)),
    );
    server = await startTestServer(dialect, {
      modelProvider: createModelProvider({
        ...BUILTIN_MODEL_CONFIG,
        default: { provider: 'openai-compatible', model: 'loopback' },
        openaiCompatible: { apiKey: null, baseUrl: `${provider.origin}/v1` },
      }),
    });
  });
  afterAll(async () => {
    await server?.stop();
    await provider?.close();
  });

  it('answers while the charge commits, and every answer is charged once', async () => {
    const tenant = await createTenant(server.storage, {
      domain: 'early-provider',
      plan: { monthlyCredits: 1_000, overageEnabled: false },
    });
    // The first answer waits for its charge; the next ones start early, on the kept-alive connection.
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await ask(server.baseUrl, 'early-provider', tenant.assistantKey));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('0:"Answered [1]."');
    }
    expect(provider.requests).toHaveLength(3);
    const rows = await server.storage.db
      .selectFrom('credit_ledger')
      .select('id')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(rows).toHaveLength(3);
  });
});
