import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_MODEL_CONFIG, type ModelConfig } from '../config.ts';
import { bootstrapSite } from '../tenancy/bootstrap-site.ts';
import { chatWithAssistant } from '../testing/chat-client.ts';
import { startTestServer, type TestServer } from '../testing/server.ts';
import { smallDocs } from '../testing/small-docs.ts';
import type { AnswerStreamPart } from './answer-stream.ts';
import { createModelProvider } from './providers/create-model-provider.ts';
import {
  type LoopbackServer,
  startLoopbackLlm,
  writeOpenAIStream,
} from './providers/testing/loopback-llm.ts';
import { withoutThinking } from './think-tags.ts';
import { listThreadMessages } from './threads.ts';

const finish: AnswerStreamPart = {
  type: 'finish',
  finishReason: 'stop',
  usage: { promptTokens: 1, completionTokens: 1 },
};

async function read(deltas: (string | AnswerStreamPart)[]): Promise<string[]> {
  async function* parts(): AsyncGenerator<AnswerStreamPart> {
    for (const d of deltas) yield typeof d === 'string' ? { type: 'text-delta', textDelta: d } : d;
  }
  const out: string[] = [];
  for await (const part of withoutThinking(parts()))
    out.push(part.type === 'text-delta' ? (part as { textDelta: string }).textDelta : `[${part.type}]`);
  return out;
}

/** Every way of cutting `text` in two, and one delta per character. */
function cuts(text: string): string[][] {
  const all = [[text], [...text]];
  for (let i = 1; i < text.length; i++) all.push([text.slice(0, i), text.slice(i)]);
  return all;
}

describe('a thinking block written into the answer', () => {
  it('is left out however the deltas cut it, and the answer after it kept', async () => {
    for (const deltas of cuts('\n<think>The user asks about keys. </thi nk> </think>\n\nRotate it [1].'))
      expect((await read([...deltas, finish])).join(''), JSON.stringify(deltas)).toBe(
        'Rotate it [1].[finish]',
      );
  });

  it('leaves an answer without one as it came, even one starting like the tag', async () => {
    for (const text of ['Rotate it [1].', '<thing> is a placeholder.', '<', ' <th'])
      for (const deltas of cuts(text))
        expect((await read([...deltas, finish])).join('')).toBe(`${text}[finish]`);
    expect((await read(['<th'])).join('')).toBe('<th');
    // A tag later in the answer is the answer's own text.
    expect((await read(['Use ', '<think>', ' tags.', finish])).join('')).toBe('Use <think> tags.[finish]');
  });

  it('is left out at the start of each step, and an unclosed one leaves no text', async () => {
    const step: AnswerStreamPart = { type: 'step-start' };
    expect(
      (
        await read([
          step,
          '<think>search first</think>',
          { type: 'tool-call' },
          step,
          '<think>found',
          ' it</think>Done.',
          finish,
        ])
      ).join(''),
    ).toBe('[step-start][tool-call][step-start]Done.[finish]');
    expect((await read(['<think>still thinking', finish])).join('')).toBe('[finish]');
  });
});

describe('a reasoning model on an OpenAI-compatible server without a reasoning parser', () => {
  let provider: LoopbackServer;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    provider = await startLoopbackLlm((req, res) =>
      writeOpenAIStream(
        res,
        {
          tokens: [
            '<think>SECRET: the system prompt',
            ' says…</th',
            'ink>\n\n',
            'Run `acme keys rotate` [1].',
          ],
        },
        String(req.body.model),
      ),
    );
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await provider?.close();
  });

  // 0: Docent's own decoder reads the answer; 1: the package's, through streamText with the search tool.
  it.each([0, 1])(
    'answers without its thinking, streamed and stored (search steps %i)',
    async (searchSteps) => {
      const config: ModelConfig = {
        ...BUILTIN_MODEL_CONFIG,
        default: { provider: 'openai-compatible', model: 'r1' },
        openaiCompatible: { apiKey: null, baseUrl: `${provider.origin}/v1` },
        maxRetries: 0,
        searchSteps,
      };
      const server = await startTestServer('sqlite', {
        modelProvider: createModelProvider(config),
        searchSteps,
      });
      servers.push(server);
      const { assistantKey } = await bootstrapSite(server.storage, { domain: 'acme', docsDir: smallDocs() });
      const question = 'How do I rotate an API key?';
      const asked = await chatWithAssistant({
        url: `${server.baseUrl}/v1/assistant/acme/message`,
        key: assistantKey,
        body: {
          fp: 'anonymous',
          messages: [
            { id: 'u1', role: 'user', content: question, parts: [{ type: 'text', text: question }] },
          ],
        },
      });
      expect(asked.error).toBeUndefined();
      expect(asked.message?.content).toBe('Run `acme keys rotate` [1].');
      const stored = (await listThreadMessages(server.storage, asked.headers?.get('X-Thread-Id') ?? '')).at(
        -1,
      );
      expect(stored?.content).toBe('Run `acme keys rotate` [1].');
    },
  );
});
