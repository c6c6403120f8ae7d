import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_MODEL_CONFIG, type ModelConfig } from '../config.ts';
import { bootstrapSite } from '../tenancy/bootstrap-site.ts';
import { chatWithAssistant } from '../testing/chat-client.ts';
import { startTestServer, type TestServer } from '../testing/server.ts';
import { smallDocs } from '../testing/small-docs.ts';
import { createModelProvider } from './providers/create-model-provider.ts';
import { updateSiteModelSettings } from './providers/site-model-settings.ts';
import {
  type LoopbackHandler,
  type LoopbackServer,
  type ScriptedStream,
  startLoopbackLlm,
  writeAnthropicStream,
  writeOpenAIStream,
} from './providers/testing/loopback-llm.ts';
import { listThreadMessages } from './threads.ts';

const STEPS = 1;

/** An OpenAI-style model that searches for "invoices" first, then writes `answer`. */
function searchThenAnswer(answer: ScriptedStream): LoopbackHandler {
  let calls = 0;
  return (req, res) =>
    writeOpenAIStream(
      res,
      calls++ === 0
        ? { tokens: [], toolCalls: [{ id: 'call_m1', name: 'search', arguments: '{"query":"invoices"}' }] }
        : answer,
      String(req.body.model),
    );
}

describe('the search tool a real model may call', () => {
  let provider: LoopbackServer;
  let script: LoopbackHandler;
  let server: TestServer;
  let key = '';
  let claudeKey = '';
  const modelConfig: ModelConfig = {
    ...BUILTIN_MODEL_CONFIG,
    default: { provider: 'openai-compatible', model: 'tool-model' },
    connectTimeoutMs: 2_000,
    stallTimeoutMs: 2_000,
    maxRetries: 0,
    searchSteps: STEPS,
  };

  beforeAll(async () => {
    provider = await startLoopbackLlm((req, res) => script(req, res));
    const config = {
      ...modelConfig,
      openaiCompatible: { apiKey: null, baseUrl: `${provider.origin}/v1` },
      anthropic: { apiKey: 'sk-ant-test', baseUrl: `${provider.origin}/anthropic/v1` },
    };
    server = await startTestServer('sqlite', {
      modelProvider: createModelProvider(config),
      searchSteps: STEPS,
    });
    key = (await bootstrapSite(server.storage, { domain: 'acme', docsDir: smallDocs(), siteName: 'Acme' }))
      .assistantKey;
    const claude = await bootstrapSite(server.storage, {
      domain: 'claude',
      docsDir: smallDocs(),
      siteName: 'Acme',
    });
    claudeKey = claude.assistantKey;
    await updateSiteModelSettings(server.storage, claude.site.id, { model: 'anthropic:claude-test' });
  });
  afterAll(async () => {
    await server?.stop();
    await provider?.close();
  });
  beforeEach(() => {
    provider.requests.length = 0;
  });

  const ask = (question: string, domain = 'acme') =>
    chatWithAssistant({
      url: `${server.baseUrl}/v1/assistant/${domain}/message`,
      key: domain === 'acme' ? key : claudeKey,
      body: {
        fp: 'anonymous',
        retrievalPageSize: 1,
        messages: [{ id: 'u1', role: 'user', content: question, parts: [{ type: 'text', text: question }] }],
      },
    });

  it('runs the search, numbers its pages after the first retrieval, and streams both as tool calls', async () => {
    script = searchThenAnswer({
      tokens: ['Invoices go out ', 'on the first of the month [2].'],
      usage: { input: 50, output: 9 },
    });
    const asked = await ask('How do I rotate an API key?');
    expect(asked.error).toBeUndefined();
    expect(asked.message?.content).toBe('Invoices go out on the first of the month [2].');

    // What the provider saw: the tool offered and explained, then the search result numbered [2].
    expect(provider.requests).toHaveLength(2);
    const first = provider.requests[0]?.body as {
      tools?: { function: { name: string } }[];
      messages: { role: string; content: string }[];
    };
    expect(first.tools?.map((t) => t.function.name)).toEqual(['search']);
    expect(first.messages[0]?.content).toContain('you may call the `search` tool');
    const second = provider.requests[1]?.body as { messages: { role: string; content: unknown }[] };
    const toolMessage = second.messages.find((m) => m.role === 'tool');
    expect(JSON.parse(String(toolMessage?.content))).toMatchObject({
      sources: [
        {
          id: '2',
          url: `${server.baseUrl}/sites/acme/pages/billing`,
          path: 'billing',
          text: expect.stringContaining('Invoices are sent'),
        },
      ],
    });

    // What the reader got: the first retrieval and the model's search as tool invocations, source [2].
    const invocations = (asked.message?.parts ?? [])
      .filter((p) => p.type === 'tool-invocation')
      .map((p) => p.toolInvocation);
    expect(invocations.map((i) => [i.toolName, i.args, i.state])).toEqual([
      ['search', { query: 'How do I rotate an API key?' }, 'result'],
      ['search', { query: 'invoices' }, 'result'],
    ]);
    const second_ = invocations[1];
    expect(second_?.state === 'result' ? second_.result : undefined).toEqual({
      type: 'search',
      results: [
        {
          path: 'billing',
          url: `${server.baseUrl}/sites/acme/pages/billing`,
          metadata: { title: 'Billing' },
        },
      ],
    });
    const sources = (asked.message?.parts ?? []).filter((p) => p.type === 'source').map((p) => p.source);
    expect(sources).toEqual([
      expect.objectContaining({ id: '2', url: `${server.baseUrl}/sites/acme/pages/billing` }),
    ]);

    const threadId = asked.headers?.get('X-Thread-Id') ?? '';
    const stored = (await listThreadMessages(server.storage, threadId)).at(-1);
    expect(stored).toMatchObject({
      role: 'assistant',
      status: 'complete',
      sources: [
        { id: '2', url: `${server.baseUrl}/sites/acme/pages/billing`, path: 'billing', title: 'Billing' },
      ],
    });
  });

  it(`refuses searches past ${STEPS} and the answer still arrives`, async () => {
    let calls = 0;
    script = (req, res) => {
      const n = calls++;
      return writeOpenAIStream(
        res,
        n < 2
          ? {
              tokens: [],
              toolCalls: [{ id: `call_${n}`, name: 'search', arguments: `{"query":"billing ${n}"}` }],
            }
          : { tokens: ['The docs do not say [1].'] },
        String(req.body.model),
      );
    };
    const asked = await ask('How do I rotate an API key?');
    expect(asked.error).toBeUndefined();
    expect(asked.message?.content).toBe('The docs do not say [1].');
    expect(provider.requests).toHaveLength(3);
    const last = provider.requests[2]?.body as { messages: { role: string; content: unknown }[] };
    const refused = last.messages.filter((m) => m.role === 'tool').at(-1);
    expect(JSON.parse(String(refused?.content))).toEqual({
      error: 'No more searches: answer from the excerpts you have.',
    });
  });

  it('ends the searching step with e: tool-calls and starts the answer in a new f: step', async () => {
    script = searchThenAnswer({ tokens: ['Monthly [2].'] });
    const response = await fetch(`${server.baseUrl}/v1/assistant/acme/message`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        fp: 'anonymous',
        retrievalPageSize: 1,
        messages: [
          { id: 'u1', role: 'user', content: 'Rotate?', parts: [{ type: 'text', text: 'Rotate?' }] },
        ],
      }),
    });
    const lines = (await response.text()).trim().split('\n');
    expect(lines.map((line) => line.slice(0, line.indexOf(':')))).toEqual([
      'f',
      '9',
      'a',
      '9',
      'a',
      'e',
      'f',
      '0',
      'h',
      '8',
      'e',
      'd',
    ]);
    expect(JSON.parse(lines[5]?.slice(2) ?? '{}')).toMatchObject({ finishReason: 'tool-calls' });
    expect(JSON.parse(lines[11]?.slice(2) ?? '{}')).toMatchObject({ finishReason: 'stop' });
  });

  it('works the same with Anthropic tool_use blocks', async () => {
    let calls = 0;
    script = (req, res) => {
      expect(req.path).toBe('/anthropic/v1/messages');
      return writeAnthropicStream(
        res,
        calls++ === 0
          ? {
              tokens: ['Let me check. '],
              toolCalls: [{ id: 'toolu_1', name: 'search', arguments: '{"query":"invoices"}' }],
            }
          : { tokens: ['Invoices go out monthly [2].'], usage: { input: 40, output: 7 } },
        String(req.body.model),
      );
    };
    const asked = await ask('How do I rotate an API key?', 'claude');
    expect(asked.error).toBeUndefined();
    expect(asked.message?.content).toBe('Let me check. Invoices go out monthly [2].');
    const first = provider.requests[0]?.body as { tools?: { name: string }[] };
    expect(first.tools?.map((t) => t.name)).toEqual(['search']);
    const second = provider.requests[1]?.body as {
      messages: { role: string; content: { type: string; content?: unknown }[] }[];
    };
    const result = second.messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .find((c) => c.type === 'tool_result');
    expect(JSON.stringify(result?.content)).toContain('Invoices are sent');
    const sources = (asked.message?.parts ?? []).filter((p) => p.type === 'source').map((p) => p.source);
    expect(sources).toEqual([
      expect.objectContaining({ id: '2', url: `${server.baseUrl}/sites/claude/pages/billing` }),
    ]);
    expect(asked.usage).toMatchObject({ completionTokens: expect.any(Number) });
  });
});
