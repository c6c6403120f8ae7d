import { callChatApi, type Message } from '@ai-sdk/ui-utils';
import { streamText } from 'ai';
import { createDataStreamResponse } from 'ai-v4';
import { describe, expect, it } from 'vitest';
import { BuiltinAnswerer, type RetrievedSource } from './builtin-answerer.ts';
import { stepAnswerParts } from './providers/model-stream.ts';
import { assistantRequestSchema } from './request-schema.ts';
import { assistantStreamHeaders, writeAnswerStream } from './stream-protocol.ts';

const sources: RetrievedSource[] = [
  {
    id: '1',
    pageTitle: 'Install the CLI',
    headings: ['Install on macOS'],
    url: 'https://docs.example.com/cli/install',
    text: 'To install the CLI on macOS, run `brew install docent`.\n\nAfter the install finishes, check the version with `docent --version`.',
    score: 9,
  },
  {
    id: '2',
    pageTitle: 'Billing',
    headings: [],
    url: 'https://docs.example.com/billing',
    text: 'Invoices are sent on the first day of each month.',
    score: 1,
  },
];

/** What the route will do, minus HTTP and storage: validate, answer with streamText, write the v4 stream. */
function respond(body: unknown, signal?: AbortSignal): Response {
  const request = assistantRequestSchema.parse(body);
  const question = request.messages.at(-1)?.content ?? '';
  return createDataStreamResponse({
    headers: assistantStreamHeaders('acme'),
    execute: async (writer) => {
      const result = streamText({
        model: new BuiltinAnswerer({ sources }),
        messages: [{ role: 'user', content: question }],
        ...(signal === undefined ? {} : { abortSignal: signal }),
      });
      await writeAnswerStream(writer, stepAnswerParts(result.fullStream), {
        messageId: 'msg-1',
        toolCallId: 'call-1',
        query: question,
        results: sources.map((s) => ({
          path: new URL(s.url).pathname.slice(1),
          url: s.url,
          title: s.pageTitle,
        })),
        sources: sources.map((s) => ({ id: s.id, url: s.url, title: s.pageTitle })),
        threadId: 'thr_1',
      });
    },
  });
}

describe('streamText(BuiltinAnswerer) through the protocol to the real client', () => {
  it('useChat sees the answer, the search call, the cited source, the thread and the finish', async () => {
    const userMessage: Message = {
      id: 'u1',
      role: 'user',
      content: 'How do I install the CLI on macOS?',
      parts: [{ type: 'text', text: 'How do I install the CLI on macOS?' }],
      createdAt: new Date('2025-01-01T00:00:00Z'),
    };
    let headers: Headers | undefined;
    let finished: { message: Message; finishReason: string; usage: unknown } | undefined;
    await callChatApi({
      api: 'http://docent.test/v1/assistant/acme/message',
      body: { id: 'chat', messages: [userMessage], fp: 'anonymous', retrievalPageSize: 5 },
      streamProtocol: 'data',
      credentials: undefined,
      headers: undefined,
      abortController: () => null,
      restoreMessagesOnFailure: () => {},
      onResponse: (response) => {
        headers = response.headers;
      },
      onUpdate: () => {},
      onFinish: (message, { finishReason, usage }) => {
        finished = { message, finishReason, usage };
      },
      onToolCall: undefined,
      generateId: () => 'generated',
      fetch: async (_url, init) => respond(JSON.parse(String(init?.body))),
      lastMessage: undefined,
    });

    expect(headers?.get('x-vercel-ai-data-stream')).toBe('v1');
    expect(headers?.get('deprecation')).toBe('@1753920000');
    const message = finished?.message;
    expect(message?.id).toBe('msg-1');
    expect(message?.content).toContain('To install the CLI on macOS, run `brew install docent`. [1]');
    expect(message?.content).not.toContain('[2]');
    expect(message?.annotations).toEqual([{ threadId: 'thr_1' }]);
    expect(finished?.finishReason).toBe('stop');
    expect(finished?.usage).toMatchObject({
      promptTokens: expect.any(Number),
      completionTokens: expect.any(Number),
    });
    const kinds = message?.parts?.map((p) => p.type);
    expect(kinds).toEqual(['step-start', 'tool-invocation', 'text', 'source']);
    const invocation = message?.parts?.find((p) => p.type === 'tool-invocation');
    expect(invocation).toMatchObject({
      toolInvocation: {
        state: 'result',
        toolName: 'search',
        args: { query: 'How do I install the CLI on macOS?' },
      },
    });
    expect(message?.parts?.at(-1)).toEqual({
      type: 'source',
      source: {
        sourceType: 'url',
        id: '1',
        url: 'https://docs.example.com/cli/install',
        title: 'Install the CLI',
      },
    });
  });

  it('the raw stream has the exact part order and the threadId on d:', async () => {
    const body = {
      fp: 'anonymous',
      messages: [{ id: 'u', role: 'user', content: 'When are invoices sent?', parts: [] }],
    };
    const text = await respond(body).text();
    const codes = text
      .trimEnd()
      .split('\n')
      .map((line) => line.slice(0, line.indexOf(':')));
    const firstText = codes.indexOf('0');
    expect(codes.slice(0, 3)).toEqual(['f', '9', 'a']);
    expect(codes.slice(firstText, codes.lastIndexOf('0') + 1).every((c) => c === '0')).toBe(true);
    expect(codes.slice(codes.lastIndexOf('0') + 1)).toEqual(['h', '8', 'e', 'd']);
    expect(text).toContain(
      'h:{"sourceType":"url","id":"2","url":"https://docs.example.com/billing","title":"Billing"}\n',
    );
    expect(text).toMatch(
      /\nd:\{"finishReason":"stop","usage":\{"promptTokens":\d+,"completionTokens":\d+\},"threadId":"thr_1"\}\n$/,
    );
  });
});

describe('a client that goes away', () => {
  it('stops the answer: the outcome is aborted and partial, nothing is written after', async () => {
    const controller = new AbortController();
    const written: string[] = [];
    const result = streamText({
      model: new BuiltinAnswerer({ sources, deltaDelayMs: 5 }),
      messages: [{ role: 'user', content: 'How do I install the CLI on macOS?' }],
      abortSignal: controller.signal,
    });
    const outcome = await writeAnswerStream(
      {
        write: (part) => {
          written.push(part);
          if (part.startsWith('0:')) controller.abort();
        },
      },
      stepAnswerParts(result.fullStream),
      {
        messageId: 'm',
        toolCallId: 'c',
        query: 'q',
        results: [],
        sources: [],
        threadId: 't',
        abortSignal: controller.signal,
      },
    );
    expect(outcome.aborted).toBe(true);
    expect(outcome.text.length).toBeGreaterThan(0);
    expect(outcome.text.length).toBeLessThan(
      new BuiltinAnswerer({ sources }).answer('How do I install the CLI on macOS?').text.length,
    );
    expect(written.filter((p) => p.startsWith('0:'))).toHaveLength(1);
    expect(written.at(-1)?.startsWith('0:')).toBe(true);
  });
});
