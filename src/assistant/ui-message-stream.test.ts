import { JsonToSseTransformStream } from 'ai-v5';
import { describe, expect, it } from 'vitest';
import { createUiChat, UI_CLIENTS, uiText } from '../testing/ui-chat-client.ts';
import type { AnswerSink } from './answer-stream.ts';
import {
  DONE_CHUNK,
  searchCallChunk,
  searchResultChunk,
  sourceChunk,
  type UiMessageChunk,
  uiMessageStreamSink,
} from './ui-message-stream.ts';

const usage = { promptTokens: 120, completionTokens: 34 };
const ids = { messageId: 'msg-1', threadId: 'thr_1', threadKey: 'thk_1' };
const pages = [{ path: 'install', url: 'https://d.example/install', title: 'Install' }];
const cited = [
  { id: '1', url: 'https://d.example/install#macos', title: 'Install › macOS' },
  { id: '3', url: 'https://d.example/faq', title: 'FAQ' },
];

/** An answer with a model's own search between two steps, as a real model with the tool streams it. */
function twoStepAnswer(sink: AnswerSink): void {
  sink.start();
  sink.searchCall('call-1', 'install "cli"');
  sink.searchResult('call-1', pages);
  sink.text('Let me look further.');
  sink.stepEnd(usage);
  sink.stepStart();
  sink.searchCall('call-2', 'faq');
  sink.searchResult('call-2', []);
  sink.text('Install it with brew [1]. ');
  sink.text('See the FAQ [3].');
  sink.finish(cited, 'stop', usage);
}

function failedAnswer(sink: AnswerSink): void {
  sink.start();
  sink.searchCall('call-1', 'q');
  sink.searchResult('call-1', pages);
  sink.text('Partial');
  sink.error('The model provider stopped responding while answering.');
}

function encode(answer: (sink: AnswerSink) => void): string {
  let out = '';
  answer(
    uiMessageStreamSink(
      {
        write: (text) => {
          out += text;
        },
      },
      ids,
    ),
  );
  return out;
}

/** What the AI SDK's own server helper writes for the same chunks. */
async function sdkBytes(chunks: UiMessageChunk[]): Promise<string> {
  const sse = new ReadableStream<UiMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  }).pipeThrough(new JsonToSseTransformStream());
  let out = '';
  for await (const text of sse as unknown as AsyncIterable<string>) out += text;
  return out;
}

describe('the v2 UI message stream, byte for byte', () => {
  it('writes what the SDK would for the same chunks, then [DONE]', async () => {
    const chunks: UiMessageChunk[] = [
      { type: 'start', messageId: 'msg-1', messageMetadata: { threadId: 'thr_1', threadKey: 'thk_1' } },
      { type: 'start-step' },
      searchCallChunk('call-1', 'install "cli"'),
      searchResultChunk('call-1', pages),
      { type: 'text-start', id: 'txt_0' },
      { type: 'text-delta', id: 'txt_0', delta: 'Let me look further.' },
      { type: 'text-end', id: 'txt_0' },
      { type: 'finish-step' },
      { type: 'start-step' },
      searchCallChunk('call-2', 'faq'),
      searchResultChunk('call-2', []),
      { type: 'text-start', id: 'txt_1' },
      { type: 'text-delta', id: 'txt_1', delta: 'Install it with brew [1]. ' },
      { type: 'text-delta', id: 'txt_1', delta: 'See the FAQ [3].' },
      { type: 'text-end', id: 'txt_1' },
      sourceChunk(cited[0] ?? { id: '', url: '', title: '' }),
      sourceChunk(cited[1] ?? { id: '', url: '', title: '' }),
      { type: 'finish-step' },
      {
        type: 'finish',
        messageMetadata: {
          threadId: 'thr_1',
          finishReason: 'stop',
          usage: { inputTokens: 120, outputTokens: 34 },
        },
      },
    ];
    // The SDK's transform ends the stream with `[DONE]` too.
    expect(encode(twoStepAnswer)).toBe(await sdkBytes(chunks));
    expect(encode(twoStepAnswer).endsWith(DONE_CHUNK)).toBe(true);
    expect(encode(twoStepAnswer).split('\n\n')[2]).toBe(
      'data: {"type":"tool-input-available","toolCallId":"call-1","toolName":"search","input":{"query":"install \\"cli\\""},"providerExecuted":true,"dynamic":true}',
    );
  });

  it('closes the open text before an error chunk, and ends with [DONE]', () => {
    expect(encode(failedAnswer).split('\n\n').slice(-4)).toEqual([
      'data: {"type":"text-end","id":"txt_0"}',
      'data: {"type":"error","errorText":"The model provider stopped responding while answering."}',
      'data: [DONE]',
      '',
    ]);
  });
});

describe.each(UI_CLIENTS.map((c) => [c.name, c] as const))('the real %s client reads', (_name, client) => {
  const chatOver = (bytes: string) =>
    createUiChat(client, {
      api: 'http://docent.test/v2/assistant/docs/message',
      key: 'svc_dsc_test',
      body: { fp: 'anonymous' },
      fetch: async () =>
        new Response(bytes, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    });

  it('a two-step answer: both searches, the text of both steps, the cited sources, the metadata', async () => {
    const chat = await chatOver(encode(twoStepAnswer));
    await chat.sendMessage({ text: 'How do I install it?' });
    expect(chat.error).toBeUndefined();
    const answer = chat.messages.at(-1);
    expect(answer?.id).toBe('msg-1');
    expect(uiText(answer)).toBe('Let me look further.Install it with brew [1]. See the FAQ [3].');
    expect(
      answer?.parts.filter((p) => p.type === 'dynamic-tool').map((p) => [p.toolCallId, p.state]),
    ).toEqual([
      ['call-1', 'output-available'],
      ['call-2', 'output-available'],
    ]);
    expect(
      answer?.parts.filter((p) => p.type === 'source-url').map((p) => [p.sourceId, p.url, p.title]),
    ).toEqual(cited.map((c) => [c.id, c.url, c.title]));
    expect(answer?.metadata).toEqual({
      threadId: 'thr_1',
      threadKey: 'thk_1',
      finishReason: 'stop',
      usage: { inputTokens: 120, outputTokens: 34 },
    });
  });

  it('a failure after the start as an error with the safe message, keeping the partial text', async () => {
    const chat = await chatOver(encode(failedAnswer));
    await chat.sendMessage({ text: 'Anything?' });
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toBe('The model provider stopped responding while answering.');
  });
});
