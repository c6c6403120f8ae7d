import { once } from 'node:events';
import type { LanguageModelV1, LanguageModelV1StreamPart } from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicModel } from './anthropic.ts';
import { anthropicMessagesStreamDecoder } from './anthropic-messages-stream.ts';
import { directStreamModel } from './direct-stream-model.ts';
import { openAIChatStreamDecoder } from './openai-chat-stream.ts';
import { createOpenAICompatibleModel } from './openai-compatible.ts';
import { ProviderStallError, ProviderStreamCutError } from './provider-errors.ts';
import { takeRawBody } from './provider-transport.ts';
import { resilientFetch } from './resilient-fetch.ts';
import {
  type LoopbackHandler,
  type LoopbackServer,
  type ScriptedStream,
  sendError,
  sleep,
  startLoopbackLlm,
  writeAnthropicStream,
  writeOpenAIStream,
} from './testing/loopback-llm.ts';

const transportOptions = { connectTimeoutMs: 2_000, stallTimeoutMs: 1_000, maxRetries: 0 };

type Flavor = 'openai-compatible' | 'anthropic';

/** A model of `flavor` on `server`, and every response its fetch returned. */
function modelOn(server: LoopbackServer, flavor: Flavor, fetch: typeof globalThis.fetch) {
  const responses: Response[] = [];
  const recording: typeof globalThis.fetch = async (input, init) => {
    const response = await fetch(input, init);
    responses.push(response);
    return response;
  };
  const access = { apiKey: 'k', baseUrl: `${server.origin}/v1` };
  const model = directStreamModel(
    flavor === 'anthropic'
      ? {
          create: (f) => createAnthropicModel('claude-test', access, f),
          fetch: recording,
          decoder: () => anthropicMessagesStreamDecoder(),
        }
      : {
          create: (f) => createOpenAICompatibleModel('llama3.1:8b', access, f),
          fetch: recording,
          decoder: () =>
            openAIChatStreamDecoder({ flavor: 'openai-compatible', metadataKey: 'openai-compatible' }),
        },
  );
  return { model, responses };
}

async function streamOf(model: LanguageModelV1, question = 'hi', abortSignal?: AbortSignal) {
  const { stream } = await model.doStream({
    inputFormat: 'messages',
    mode: { type: 'regular' },
    prompt: [{ role: 'user', content: [{ type: 'text', text: question }] }],
    ...(abortSignal ? { abortSignal } : {}),
  });
  return stream;
}

async function partsOf(stream: ReadableStream<LanguageModelV1StreamPart>): Promise<unknown[]> {
  const parts: unknown[] = [];
  for await (const part of stream)
    parts.push(
      part.type === 'error' && part.error instanceof Error ? { type: 'error', error: part.error.name } : part,
    );
  return parts;
}

function scripted(flavor: Flavor, script: ScriptedStream): LoopbackHandler {
  return (_req, res) =>
    flavor === 'anthropic' ? writeAnthropicStream(res, script) : writeOpenAIStream(res, script);
}

describe('directStreamModel', () => {
  let server: LoopbackServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const cases: { flavor: Flavor; script: ScriptedStream }[] = [
    {
      flavor: 'openai-compatible',
      script: { tokens: ['Rotate ', 'the key [1].'], usage: { input: 50, output: 4 } },
    },
    {
      flavor: 'openai-compatible',
      script: {
        tokens: ['Searching.'],
        toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"query":"keys"}' }],
      },
    },
    { flavor: 'openai-compatible', script: { tokens: ['Rotate '], ending: 'end' } },
    { flavor: 'openai-compatible', script: { tokens: ['Rotate '], ending: 'error' } },
    {
      flavor: 'anthropic',
      script: { tokens: ['Invoices ', 'arrive [2].'], usage: { input: 70, output: 5 } },
    },
    {
      flavor: 'anthropic',
      script: {
        tokens: ['Let me look.'],
        toolCalls: [{ id: 'toolu_1', name: 'search', arguments: '{"query":"x"}' }],
      },
    },
    { flavor: 'anthropic', script: { tokens: ['Invoices '], ending: 'error' } },
  ];

  it.each(cases)(
    '$flavor: decodes the body itself, to the parts the package gives with the same checks ($script.ending)',
    async ({ flavor, script }) => {
      server = await startLoopbackLlm(scripted(flavor, script));
      const direct = modelOn(server, flavor, resilientFetch(transportOptions));
      const directParts = await partsOf(await streamOf(direct.model));
      // The raw body was taken, and the web body the package was handed instead was never read.
      expect(direct.responses).toHaveLength(1);
      expect(direct.responses[0]?.bodyUsed).toBe(false);
      expect(takeRawBody(direct.responses[0] as Response)).toBeUndefined();

      // Any other fetch: the package decodes its own stream, under the same checks.
      const viaPackage = modelOn(server, flavor, globalThis.fetch);
      expect(await partsOf(await streamOf(viaPackage.model))).toEqual(directParts);
      expect(directParts.length).toBeGreaterThan(2);
    },
  );

  it('ends a stream cut before its finish with ProviderStreamCutError, for Anthropic too', async () => {
    for (const flavor of ['openai-compatible', 'anthropic'] as const) {
      server = await startLoopbackLlm(scripted(flavor, { tokens: ['Invoices '], ending: 'end' }));
      const parts = await partsOf(
        await streamOf(modelOn(server, flavor, resilientFetch(transportOptions)).model),
      );
      expect(parts.at(-1)).toEqual({ type: 'error', error: 'ProviderStreamCutError' });
      expect(parts).toContainEqual({ type: 'text-delta', textDelta: 'Invoices ' });
      await server.close();
      server = undefined;
    }
    expect(new ProviderStreamCutError().name).toBe('ProviderStreamCutError');
  });

  it('gives each of many concurrent answers its own response', async () => {
    server = await startLoopbackLlm(async (req, res) => {
      const messages = req.body.messages as { content: string }[];
      const question = messages.at(-1)?.content ?? '';
      // Answers finish in a different order than they started.
      await sleep(Math.round(Math.random() * 40));
      await writeOpenAIStream(res, { tokens: [`answer to ${question}`, '.'], tokenDelayMs: 5 });
    });
    const { model } = modelOn(server, 'openai-compatible', resilientFetch(transportOptions));
    const questions = Array.from({ length: 24 }, (_, i) => `q${i}`);
    // Each with no signal, then all with one shared signal: calls are told apart either way.
    const shared = new AbortController().signal;
    for (const signal of [undefined, shared]) {
      const answers = await Promise.all(
        questions.map(async (q) => {
          let text = '';
          for await (const part of await streamOf(model, q, signal))
            if (part.type === 'text-delta') text += part.textDelta;
          return text;
        }),
      );
      expect(answers).toEqual(questions.map((q) => `answer to ${q}.`));
    }
  });

  it("stops the upstream request when the caller's signal aborts mid-answer", async () => {
    server = await startLoopbackLlm(
      scripted('openai-compatible', {
        tokens: Array.from({ length: 200 }, (_, i) => `w${i} `),
        tokenDelayMs: 10,
      }),
    );
    const caller = new AbortController();
    const stream = await streamOf(
      modelOn(server, 'openai-compatible', resilientFetch(transportOptions)).model,
      'hi',
      caller.signal,
    );
    const reader = stream.getReader();
    await reader.read();
    caller.abort(new Error('reader left'));
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toThrow('reader left');
    expect(await server.requests[0]?.closed).toEqual({ early: true });
  });

  it('leaves a failed response to the package: its APICallError, with the status and body', async () => {
    server = await startLoopbackLlm((_req, res) => sendError(res, 400, 'model not found'));
    const { model } = modelOn(server, 'openai-compatible', resilientFetch(transportOptions));
    const failure = await streamOf(model).catch((error: unknown) => error);
    expect(APICallError.isInstance(failure)).toBe(true);
    expect((failure as APICallError).statusCode).toBe(400);
    expect((failure as APICallError).responseBody).toContain('model not found');
  });

  it('pauses the provider while the reader is behind, without counting it as a stall', async () => {
    const total = 32_000;
    const token = 'x'.repeat(1_000);
    let sent = 0;
    server = await startLoopbackLlm(async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (let i = 0; i < total; i++) {
        const chunk = {
          id: 'c',
          created: 1,
          model: 'm',
          choices: [{ index: 0, delta: { content: token }, finish_reason: null }],
        };
        if (!res.write(`data: ${JSON.stringify(chunk)}\n\n`)) await once(res, 'drain');
        sent++;
      }
      res.end(
        `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
      );
    });
    const stream = await streamOf(
      modelOn(server, 'openai-compatible', resilientFetch(transportOptions)).model,
    );
    // Longer than the stall timeout (1 s).
    await sleep(1_500);
    // 32 MB do not fit in the sockets' buffers: the provider is held back, not read into memory.
    expect(sent).toBeLessThan(total / 2);
    let deltas = 0;
    for await (const part of stream) {
      if (part.type === 'error') throw part.error;
      if (part.type === 'text-delta') deltas++;
    }
    expect(deltas).toBe(total);
    expect(sent).toBe(total);
  });

  it('fails with ProviderStallError when the provider goes silent', async () => {
    server = await startLoopbackLlm(scripted('openai-compatible', { tokens: ['Rotate '], ending: 'stall' }));
    const stream = await streamOf(
      modelOn(server, 'openai-compatible', resilientFetch(transportOptions)).model,
    );
    await expect(partsOf(stream)).rejects.toBeInstanceOf(ProviderStallError);
    expect(await server.requests[0]?.closed).toEqual({ early: true });
  });
});
