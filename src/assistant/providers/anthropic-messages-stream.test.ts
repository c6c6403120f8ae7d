import { describe, expect, it } from 'vitest';
import { createAnthropicModel } from './anthropic.ts';
import { anthropicMessagesStreamDecoder } from './anthropic-messages-stream.ts';
import { chunkings, docentDecoding, packageDecoding } from './testing/stream-differential.ts';

const event = (name: string, data: Record<string, unknown>): string =>
  `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
const start = (usage: Record<string, unknown> = { input_tokens: 900, output_tokens: 1 }) =>
  event('message_start', {
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], usage },
  });
const textBlock = (index: number) =>
  event('content_block_start', { index, content_block: { type: 'text', text: '' } });
const text = (index: number, value: string) =>
  event('content_block_delta', { index, delta: { type: 'text_delta', text: value } });
const stop = (index: number) => event('content_block_stop', { index });
const end = (reason: string, output = 12) =>
  event('message_delta', {
    delta: { stop_reason: reason, stop_sequence: null },
    usage: { output_tokens: output },
  }) + event('message_stop', {});

const transcripts: Record<string, string> = {
  'a plain answer with a ping': [
    start(),
    textBlock(0),
    event('ping', {}),
    text(0, 'Invoices arrive '),
    text(0, 'monthly [2].'),
    stop(0),
    end('end_turn'),
  ].join(''),
  'multibyte text (split inside characters when cut at every byte)': [
    start(),
    textBlock(0),
    text(0, 'Grüße 日本語 🚀'),
    stop(0),
    end('max_tokens'),
  ].join(''),
  'a tool call with its input in pieces, after text': [
    start({ input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 5, cache_read_input_tokens: 7 }),
    textBlock(0),
    text(0, 'Let me search.'),
    stop(0),
    event('content_block_start', {
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'search', input: {} },
    }),
    event('content_block_delta', {
      index: 1,
      delta: { type: 'input_json_delta', partial_json: '{"query":' },
    }),
    event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '"keys"}' } }),
    stop(1),
    end('tool_use', 30),
  ].join(''),
  'thinking with a signature, redacted thinking, a stray signature': [
    start(),
    event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
    event('content_block_delta', {
      index: 0,
      delta: { type: 'thinking_delta', thinking: 'Keys live in settings.' },
    }),
    event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig==' } }),
    stop(0),
    event('content_block_start', { index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } }),
    stop(1),
    textBlock(2),
    event('content_block_delta', { index: 2, delta: { type: 'signature_delta', signature: 'ignored' } }),
    text(2, 'In settings.'),
    stop(2),
    end('stop_sequence'),
  ].join(''),
  'an error event after text': [
    start(),
    textBlock(0),
    text(0, 'Invoices '),
    event('error', { error: { type: 'overloaded_error', message: 'Overloaded', extra: 1 } }),
  ].join(''),
  'a stream cut before message_stop': [start(), textBlock(0), text(0, 'Invoices ')].join(''),
  'an unknown event type, text that is not JSON, a delta the schema refuses': [
    start(),
    textBlock(0),
    event('content_block_future', { index: 0 }),
    'event: x\ndata: {oops\n\n',
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 3 } }),
    text(0, 'Still here.'),
    stop(0),
    end('end_turn'),
  ].join(''),
};

describe('Anthropic messages stream decoding against the package', () => {
  const modelId = 'claude-3-5-haiku-latest';

  it.each(Object.entries(transcripts))('%s: the same parts for every chunking', async (_name, body) => {
    for (const chunks of chunkings(body, { everyByte: body.length < 1_500 })) {
      const expected = await packageDecoding(createAnthropicModel, modelId, chunks);
      expect(docentDecoding(anthropicMessagesStreamDecoder(), chunks)).toEqual(expected);
    }
  });

  it('an input delta for a block that never started fails the stream after the same parts', async () => {
    const body = [
      start(),
      textBlock(0),
      text(0, 'Hi'),
      event('content_block_delta', { index: 4, delta: { type: 'input_json_delta', partial_json: '{}' } }),
    ].join('');
    for (const chunks of chunkings(body)) {
      const expected = await packageDecoding(createAnthropicModel, modelId, chunks);
      expect(expected.failed).toBe(true);
      expect(docentDecoding(anthropicMessagesStreamDecoder(), chunks)).toEqual(expected);
    }
  });

  it('decodes what it should (the comparison is not between two empty outputs)', () => {
    const body = transcripts['a tool call with its input in pieces, after text'] ?? '';
    const { parts } = docentDecoding(anthropicMessagesStreamDecoder(), chunkings(body)[0] ?? []);
    expect(parts).toContainEqual({ type: 'text-delta', textDelta: 'Let me search.' });
    expect(parts).toContainEqual({
      type: 'tool-call',
      toolCallType: 'function',
      toolCallId: 'toolu_1',
      toolName: 'search',
      args: '{"query":"keys"}',
    });
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'tool-calls',
      usage: { promptTokens: 10, completionTokens: 30 },
      providerMetadata: { anthropic: { cacheCreationInputTokens: 5, cacheReadInputTokens: 7 } },
    });
  });
});
