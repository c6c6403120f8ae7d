import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_MODEL_CONFIG, type ModelConfig } from '../config.ts';
import { bootstrapSite } from '../tenancy/bootstrap-site.ts';
import { chatWithAssistant } from '../testing/chat-client.ts';
import { startTestServer, type TestServer } from '../testing/server.ts';
import { smallDocs } from '../testing/small-docs.ts';
import { NO_COVERAGE_MESSAGE } from './builtin-answerer.ts';
import { createModelProvider } from './providers/create-model-provider.ts';
import { updateSiteModelSettings } from './providers/site-model-settings.ts';
import { WEAK_RETRIEVAL_NOTE } from './providers/system-prompt.ts';
import {
  type LoopbackServer,
  startLoopbackLlm,
  writeOpenAIStream,
} from './providers/testing/loopback-llm.ts';
import { MIN_RETRIEVAL_STRENGTH } from './retrieval-strength.ts';
import { listThreadMessages } from './threads.ts';

/** Asked of the two-page Acme docs (API keys, billing): covered, and not (only "rotate" matches). */
const COVERED = 'How do I rotate an API key?';
const NOT_COVERED = 'How do I rotate the Kubernetes cluster certificates?';

describe('weak retrieval: one "not covered" decision for real models and the built-in answerer', () => {
  let provider: LoopbackServer;
  let server: TestServer;
  let modelKey = '';
  let builtinKey = '';

  beforeAll(async () => {
    // A model that always answers with a confident guess citing [1], whatever it is told.
    provider = await startLoopbackLlm((req, res) =>
      writeOpenAIStream(res, { tokens: ['Run `acme keys rotate` [1].'] }, String(req.body.model)),
    );
    const config: ModelConfig = {
      ...BUILTIN_MODEL_CONFIG,
      default: { provider: 'openai-compatible', model: 'guesser' },
      openaiCompatible: { apiKey: null, baseUrl: `${provider.origin}/v1` },
      connectTimeoutMs: 2_000,
      stallTimeoutMs: 2_000,
      maxRetries: 0,
      searchSteps: 0,
    };
    server = await startTestServer('sqlite', { modelProvider: createModelProvider(config) });
    modelKey = (
      await bootstrapSite(server.storage, { domain: 'model', docsDir: smallDocs(), siteName: 'Acme' })
    ).assistantKey;
    const builtin = await bootstrapSite(server.storage, {
      domain: 'builtin',
      docsDir: smallDocs(),
      siteName: 'Acme',
    });
    builtinKey = builtin.assistantKey;
    await updateSiteModelSettings(server.storage, builtin.site.id, { model: 'builtin' });
  });
  afterAll(async () => {
    await server?.stop();
    await provider?.close();
  });

  const ask = async (domain: 'model' | 'builtin', question: string) => {
    provider.requests.length = 0;
    const asked = await chatWithAssistant({
      url: `${server.baseUrl}/v1/assistant/${domain}/message`,
      key: domain === 'model' ? modelKey : builtinKey,
      body: {
        fp: 'anonymous',
        messages: [{ id: 'u1', role: 'user', content: question, parts: [{ type: 'text', text: question }] }],
      },
    });
    expect(asked.error).toBeUndefined();
    const stored = (await listThreadMessages(server.storage, asked.headers?.get('X-Thread-Id') ?? '')).at(-1);
    const system = (
      provider.requests[0]?.body as { messages?: { role: string; content: string }[] } | undefined
    )?.messages?.[0]?.content;
    return { text: asked.message?.content ?? '', stored, system };
  };

  it('strong retrieval: the model is not warned and its answer is stored as answered', async () => {
    const { stored, system } = await ask('model', COVERED);
    expect(system).toContain('Documentation excerpts:');
    expect(system).not.toContain(WEAK_RETRIEVAL_NOTE);
    expect(stored?.retrievalScore).toBeGreaterThanOrEqual(MIN_RETRIEVAL_STRENGTH);
    expect(stored?.answered).toBe(true);
  });

  it('weak retrieval: the model is told the docs do not appear to cover it, and a guess is stored unanswered', async () => {
    const { text, stored, system } = await ask('model', NOT_COVERED);
    // The search still found the page with "rotate": there are excerpts, but they are a near miss.
    expect(system).toContain('[1] Rotate API keys');
    expect(system).toContain(WEAK_RETRIEVAL_NOTE);
    expect(text).toBe('Run `acme keys rotate` [1].');
    expect(stored?.retrievalScore).toBeLessThan(MIN_RETRIEVAL_STRENGTH);
    expect(stored?.answered).toBe(false);
  });

  it('the built-in answerer declines the same question, and answers the covered one', async () => {
    const declined = await ask('builtin', NOT_COVERED);
    expect(declined.text.startsWith(NO_COVERAGE_MESSAGE)).toBe(true);
    expect(declined.stored?.answered).toBe(false);
    const answered = await ask('builtin', COVERED);
    expect(answered.text).toContain('acme keys rotate');
    expect(answered.stored?.answered).toBe(true);
    expect(provider.requests).toHaveLength(0);
  });
});
