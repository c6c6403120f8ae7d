import { createRequire } from 'node:module';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnswerStreamPart } from '../answer-stream.ts';
import { decodeChatStream, MAX_EVENT_BYTES, MIRRORED_PACKAGE, MIRRORED_VERSION } from './fast-chat-stream.ts';
import { modelAnswerParts } from './model-stream.ts';

const chunk = (body: Record<string, unknown>) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', ...body })}\n\n`;
const delta = (d: Record<string, unknown>, finish: string | null = null) =>
  chunk({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
const usage = chunk({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } });

/** Event streams as servers send them, normal and not. */
const STREAMS: Record<string, string> = {
  answer: `${delta({ role: 'assistant', content: '' })}${delta({ content: 'Rotate ' })}${delta({ content: 'keys [1].' })}${delta({}, 'stop')}${usage}data: [DONE]\n\n`,
  'usage in the finish chunk': `${delta({ content: 'Hi' })}${chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage: { prompt_tokens: 5, completion_tokens: 1 } })}`,
  'content parts and reasoning': `${delta({ reasoning_content: 'thinking' })}${delta({
    content: [
      { type: 'thinking', thinking: [{ type: 'text', text: 'x' }] },
      { type: 'text', text: 'Answer' },
    ],
  })}${delta({}, 'stop')}`,
  refusal: `${delta({ refusal: 'I cannot help with that.' })}${delta({}, 'stop')}`,
  'no usage': `${delta({ content: 'Ünïcödé ✓ ' })}${delta({ content: 'done' }, 'stop')}`,
  'odd finish reason': `${delta({ content: 'x' })}${delta({}, 'eos_token')}`,
  'cut without a finish reason': `${delta({ content: 'Half an ' })}${delta({ content: 'answer' })}`,
  'error chunk': `${delta({ content: 'Start ' })}data: ${JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } })}\n\n${delta({ content: 'never' }, 'stop')}`,
  'invalid JSON': `${delta({ content: 'Start ' })}data: {not json\n\n${delta({}, 'stop')}`,
  'chunk without choices': `${delta({ content: 'Start ' })}${chunk({ nothing: true })}${delta({}, 'stop')}`,
  'CRLF lines and comments': `: keep-alive\r\n\r\n${delta({ content: 'a' }).replace(/\n/g, '\r\n')}${delta({}, 'stop')}`,
};

/** The parts the package's own decoding gives for `sse` (read as the assistant reads a model). */
async function packageParts(sse: string, cut: number[]): Promise<AnswerStreamPart[]> {
  const model = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: 'http://127.0.0.1:1/v1',
    fetch: async () => new Response(bodyOf(sse, cut), { headers: { 'content-type': 'text/event-stream' } }),
  }).chatModel('m');
  const { stream } = await model.doStream({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }],
  });
  return collect(modelAnswerParts(stream));
}

/** `sse` as a body cut into chunks at the byte offsets `cut` (in the middle of characters too). */
function bodyOf(sse: string, cut: number[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(sse);
  const points = [...new Set(cut.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces = [0, ...points, bytes.length]
    .slice(1)
    .map((end, i, ends) => bytes.slice(i === 0 ? 0 : ends[i - 1], end));
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
}

async function collect(parts: AsyncIterable<AnswerStreamPart>): Promise<AnswerStreamPart[]> {
  const out: AnswerStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

/** Errors compare by kind only: the two sides word an unparsable chunk differently. */
const comparable = (parts: AnswerStreamPart[]) =>
  parts.map((p) => (p.type === 'error' ? { type: 'error' } : p));

describe(`Docent's decoder of ${MIRRORED_PACKAGE} chat streams (the quarantined fast path)`, () => {
  it('mirrors the installed version of the package', () => {
    const installed = createRequire(import.meta.url)(`${MIRRORED_PACKAGE}/package.json`) as {
      version: string;
    };
    // A new version may decode differently: re-read its chat stream code, update the decoder and the version.
    expect(installed.version).toBe(MIRRORED_VERSION);
  });

  for (const [name, sse] of Object.entries(STREAMS)) {
    it(`gives the package's answer parts for: ${name}, however the body is cut`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(), { maxLength: 6 }), async (cut) => {
          const ours = await collect(decodeChatStream(bodyOf(sse, cut)));
          expect(comparable(ours)).toEqual(comparable(await packageParts(sse, cut)));
        }),
        { numRuns: 25 },
      );
    });
  }

  it(`fails an event longer than ${MAX_EVENT_BYTES} bytes instead of buffering it`, async () => {
    const endless = `${delta({ content: 'Start ' })}data: ${'x'.repeat(MAX_EVENT_BYTES + 10)}`;
    const parts = await collect(decodeChatStream(bodyOf(endless, [100, 70_000, 900_000])));
    expect(parts.map((p) => p.type)).toEqual(['text-delta', 'error']);
  });

  it('names a cut answer as cut (the package reports it as invalid data)', async () => {
    const parts = await collect(decodeChatStream(bodyOf(STREAMS['cut without a finish reason'] ?? '', [])));
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { name: 'ProviderStreamCutError' } });
  });
});
