import { describe, expect, it } from 'vitest';
import { createOpenAIModel } from './openai.ts';
import { openAIChatStreamDecoder } from './openai-chat-stream.ts';
import { createOpenAICompatibleModel } from './openai-compatible.ts';
import {
  chunkings,
  docentDecoding,
  type ModelFactory,
  packageDecoding,
} from './testing/stream-differential.ts';

/** One chat completion chunk as an SSE event. */
function chunk(choices: unknown[], extra: Record<string, unknown> = {}): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm-1', choices, ...extra })}\n\n`;
}
const delta = (d: Record<string, unknown>, finish: string | null = null) =>
  chunk([{ index: 0, delta: d, finish_reason: finish }]);
const usage = (u: Record<string, unknown>) => chunk([], { usage: u });
const DONE = 'data: [DONE]\n\n';

const transcripts: Record<string, string> = {
  'a plain answer with usage': [
    delta({ role: 'assistant', content: '' }),
    delta({ content: 'Rotate the key ' }),
    delta({ content: 'in settings [1].' }),
    delta({}, 'stop'),
    usage({ prompt_tokens: 900, completion_tokens: 7, total_tokens: 907 }),
    DONE,
  ].join(''),
  'multibyte text (split inside characters when cut at every byte)': [
    delta({ content: 'Grüße ' }),
    delta({ content: '日本語 🚀' }),
    delta({}, 'stop'),
    DONE,
  ].join(''),
  'two tool calls with their arguments in pieces': [
    delta({ role: 'assistant', content: null }),
    delta({
      tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'search', arguments: '' } }],
    }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '{"query":' } }] }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '"keys"}' } }] }),
    delta({
      tool_calls: [
        {
          index: 1,
          id: 'call_b',
          type: 'function',
          function: { name: 'search', arguments: '{"query":"x"}' },
        },
      ],
    }),
    delta({ tool_calls: [{ index: 1, function: { arguments: 'ignored after completion' } }] }),
    delta({}, 'tool_calls'),
    usage({ prompt_tokens: 10, completion_tokens: 4 }),
    DONE,
  ].join(''),
  'reasoning deltas and detailed usage': [
    delta({ reasoning_content: 'Thinking about keys. ' }),
    delta({ content: 'Use settings.' }),
    delta({}, 'length'),
    usage({
      prompt_tokens: 50,
      completion_tokens: 20,
      prompt_tokens_details: { cached_tokens: 32 },
      completion_tokens_details: {
        reasoning_tokens: 12,
        accepted_prediction_tokens: 1,
        rejected_prediction_tokens: 2,
      },
    }),
    DONE,
  ].join(''),
  'an error chunk after text': [
    delta({ content: 'Partial ' }),
    `data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error', code: 500, param: null } })}\n\n`,
  ].join(''),
  'text that is not JSON, and a chunk the schema refuses': [
    delta({ content: 'One ' }),
    'data: {not json\n\n',
    delta({ content: 5 }),
    `data: ${JSON.stringify({ choices: 'none' })}\n\n`,
    delta({ content: 'two.' }, 'content_filter'),
    DONE,
  ].join(''),
  'a stream cut before any finish reason or usage': [
    delta({ content: 'Rotate ' }),
    delta({ content: 'the' }),
  ].join(''),
  'CRLF lines, comments, event and id fields, a BOM, data without a space, data over two lines': [
    '\uFEFF: keep-alive\r\n\r\n',
    'event: message\r\nid: 1\r\n',
    `data:${JSON.stringify({ id: 'c', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'A' }, finish_reason: null }] })}\r\n\r\n`,
    'data: {"id":"c","choices":\r\ndata: [{"index":0,"delta":{"content":"B"},"finish_reason":"stop"}]}\r\n\r\n',
    'retry: 100\r\n\r\n',
    'data: [DONE]\r\n\r\n',
  ].join(''),
  'a last event without the closing blank line': [delta({ content: 'Done' }, 'stop'), 'data: [DONE]'].join(
    '',
  ),
  'choices without a delta, and a usage chunk with nulls': [
    chunk([{ index: 0, delta: null, finish_reason: null }]),
    delta({ content: 'x' }),
    chunk([{ index: 0, finish_reason: 'stop' }], { usage: { prompt_tokens: null, completion_tokens: 3 } }),
    DONE,
  ].join(''),
  'log probabilities': [
    chunk([
      {
        index: 0,
        delta: { content: 'Hi' },
        logprobs: {
          content: [{ token: 'Hi', logprob: -0.1, top_logprobs: [{ token: 'Hi', logprob: -0.1 }] }],
        },
        finish_reason: null,
      },
    ]),
    chunk([{ index: 0, delta: { content: '!' }, logprobs: { content: null }, finish_reason: 'stop' }]),
    DONE,
  ].join(''),
};

const failing: Record<string, string> = {
  'a first tool call delta without a type': [
    delta({ content: 'Searching' }),
    delta({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'search', arguments: '' } }] }),
    delta({}, 'tool_calls'),
  ].join(''),
  'a first tool call delta without an id': delta({
    tool_calls: [{ index: 0, type: 'function', function: { name: 'search' } }],
  }),
};

const flavors: {
  name: 'openai' | 'openai-compatible';
  create: ModelFactory;
  modelId: string;
  key: string;
}[] = [
  { name: 'openai', create: createOpenAIModel, modelId: 'gpt-4o-mini', key: 'openai' },
  {
    name: 'openai-compatible',
    create: createOpenAICompatibleModel,
    modelId: 'llama3.1:8b',
    key: 'openai-compatible',
  },
];

describe.each(flavors)('OpenAI chat stream decoding ($name) against the package', (flavor) => {
  const decoder = () => openAIChatStreamDecoder({ flavor: flavor.name, metadataKey: flavor.key });

  it.each(Object.entries(transcripts))('%s: the same parts for every chunking', async (_name, text) => {
    const everyByte = text.length < 1_500;
    for (const chunks of chunkings(text, { everyByte })) {
      const expected = await packageDecoding(flavor.create, flavor.modelId, chunks);
      expect(docentDecoding(decoder(), chunks)).toEqual(expected);
    }
  });

  it.each(Object.entries(failing))('%s: fails the stream after the same parts', async (_name, text) => {
    for (const chunks of chunkings(text)) {
      const expected = await packageDecoding(flavor.create, flavor.modelId, chunks);
      expect(expected.failed).toBe(true);
      expect(docentDecoding(decoder(), chunks)).toEqual(expected);
    }
  });

  it('decodes what it should (the comparison is not between two empty outputs)', () => {
    const text = transcripts['two tool calls with their arguments in pieces'] ?? '';
    const { parts } = docentDecoding(decoder(), chunkings(text)[0] ?? []);
    expect(parts).toContainEqual({
      type: 'tool-call',
      toolCallType: 'function',
      toolCallId: 'call_a',
      toolName: 'search',
      args: '{"query":"keys"}',
    });
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'tool-calls',
      usage: { promptTokens: 10 },
    });
  });
});
