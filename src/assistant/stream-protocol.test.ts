import { callChatApi, type JSONValue, processDataStream } from '@ai-sdk/ui-utils';
import { createDataStream, simulateReadableStream } from 'ai-v4';
import { describe, expect, it } from 'vitest';
import {
  type AnswerStreamPart,
  ASSISTANT_STREAM_HEADERS,
  assistantStreamHeaders,
  coalescingWriter,
  errorPart,
  finishMessagePart,
  finishStepPart,
  searchToolCallPart,
  searchToolResultPart,
  sourcePart,
  startStepPart,
  textPart,
  threadAnnotationPart,
  writeAnswerStream,
} from './stream-protocol.ts';

const usage = { promptTokens: 120, completionTokens: 34 };

describe('stream parts, byte for byte', () => {
  it('start step', () => {
    expect(startStepPart('msg-1')).toBe('f:{"messageId":"msg-1"}\n');
  });

  it('search tool call', () => {
    expect(searchToolCallPart('call-1', 'install "cli"')).toBe(
      '9:{"toolCallId":"call-1","toolName":"search","args":{"query":"install \\"cli\\""}}\n',
    );
  });

  it('search tool result', () => {
    expect(
      searchToolResultPart('call-1', [
        { path: 'guides/install', url: 'https://docs.example.com/guides/install', title: 'Install' },
        { path: 'faq', url: 'https://docs.example.com/faq', title: 'FAQ' },
      ]),
    ).toBe(
      'a:{"toolCallId":"call-1","result":{"type":"search","results":[' +
        '{"path":"guides/install","url":"https://docs.example.com/guides/install","metadata":{"title":"Install"}},' +
        '{"path":"faq","url":"https://docs.example.com/faq","metadata":{"title":"FAQ"}}]}}\n',
    );
    expect(searchToolResultPart('call-2', [])).toBe(
      'a:{"toolCallId":"call-2","result":{"type":"search","results":[]}}\n',
    );
  });

  it('source', () => {
    expect(sourcePart({ id: '2', url: 'https://docs.example.com/faq', title: 'FAQ' })).toBe(
      'h:{"sourceType":"url","id":"2","url":"https://docs.example.com/faq","title":"FAQ"}\n',
    );
  });

  it('text, escaped as JSON (newlines, quotes, unicode kept)', () => {
    expect(textPart('Hello "docs"\n\n- é [1]')).toBe('0:"Hello \\"docs\\"\\n\\n- é [1]"\n');
  });

  it('thread annotation', () => {
    expect(threadAnnotationPart('thr_1')).toBe('8:[{"threadId":"thr_1"}]\n');
  });

  it('finish step', () => {
    expect(finishStepPart('stop', usage)).toBe(
      'e:{"finishReason":"stop","usage":{"promptTokens":120,"completionTokens":34},"isContinued":false}\n',
    );
  });

  it('finish message carries threadId, and usage holds only the two counts', () => {
    const wide = { ...usage, totalTokens: 154 };
    expect(finishMessagePart('stop', wide, 'thr_1')).toBe(
      'd:{"finishReason":"stop","usage":{"promptTokens":120,"completionTokens":34},"threadId":"thr_1"}\n',
    );
  });

  it('error', () => {
    expect(errorPart()).toBe('3:"An error occurred."\n');
    expect(errorPart('The answer was interrupted.')).toBe('3:"The answer was interrupted."\n');
  });
});

describe('headers', () => {
  it('are the data stream headers plus the deprecation signals', () => {
    expect(assistantStreamHeaders('acme')).toEqual({
      'Content-Type': 'text/plain; charset=utf-8',
      'X-Vercel-AI-Data-Stream': 'v1',
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
      Deprecation: '@1753920000',
      Link: '</v2/assistant/acme/message>; rel="successor-version"',
    });
    expect(ASSISTANT_STREAM_HEADERS).not.toHaveProperty('Link');
  });

  it('keep the /discovery prefix and encode the domain', () => {
    expect(assistantStreamHeaders('a b', '/discovery').Link).toBe(
      '</discovery/v2/assistant/a%20b/message>; rel="successor-version"',
    );
  });
});

const fullStream = (): string =>
  [
    startStepPart('msg-1'),
    searchToolCallPart('call-1', 'how to install'),
    searchToolResultPart('call-1', [{ path: 'install', url: 'https://d.example/install', title: 'Install' }]),
    textPart('Run the '),
    textPart('installer [1].'),
    sourcePart({ id: '1', url: 'https://d.example/install', title: 'Install' }),
    threadAnnotationPart('thr_1'),
    finishStepPart('stop', usage),
    finishMessagePart('stop', usage, 'thr_1'),
  ].join('');

function bytes(text: string, chunkSize: number): ReadableStream<Uint8Array> {
  const encoded = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < encoded.length; i += chunkSize) chunks.push(encoded.slice(i, i + chunkSize));
  return simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null });
}

describe('the real v4 client reads the stream', () => {
  it('processDataStream sees every part, even when lines are split across chunks', async () => {
    const seen: string[] = [];
    const sources: unknown[] = [];
    let finish: unknown;
    await processDataStream({
      stream: bytes(fullStream(), 7),
      onStartStepPart: (v) => {
        seen.push(`start:${v.messageId}`);
      },
      onToolCallPart: (v) => {
        seen.push(`call:${v.toolName}:${JSON.stringify(v.args)}`);
      },
      onToolResultPart: (v) => {
        seen.push(`result:${v.toolCallId}`);
      },
      onTextPart: (v) => {
        seen.push(`text:${v}`);
      },
      onSourcePart: (v) => {
        sources.push(v);
      },
      onMessageAnnotationsPart: (v) => {
        seen.push(`annotations:${JSON.stringify(v)}`);
      },
      onFinishStepPart: (v) => {
        seen.push(`step:${v.finishReason}:${v.isContinued}`);
      },
      onFinishMessagePart: (v) => {
        finish = v;
      },
      onErrorPart: (v) => {
        seen.push(`error:${v}`);
      },
    });
    expect(seen).toEqual([
      'start:msg-1',
      'call:search:{"query":"how to install"}',
      'result:call-1',
      'text:Run the ',
      'text:installer [1].',
      'annotations:[{"threadId":"thr_1"}]',
      'step:stop:false',
    ]);
    expect(sources).toEqual([
      { sourceType: 'url', id: '1', url: 'https://d.example/install', title: 'Install' },
    ]);
    // The client keeps only finishReason and usage of `d:`; the threadId is for raw readers.
    expect(finish).toEqual({ finishReason: 'stop', usage });
  });

  it('callChatApi (what useChat runs) builds the assistant message', async () => {
    let finished:
      | {
          message: { content: string; parts?: unknown[]; annotations?: JSONValue[] };
          reason: string;
          usage: unknown;
        }
      | undefined;
    await callChatApi({
      api: 'http://docent.test/v1/assistant/acme/message',
      body: { messages: [], fp: 'anonymous' },
      streamProtocol: 'data',
      credentials: undefined,
      headers: undefined,
      abortController: () => null,
      restoreMessagesOnFailure: () => {},
      onResponse: undefined,
      onUpdate: () => {},
      onFinish: (message, { finishReason, usage: u }) => {
        finished = { message, reason: finishReason, usage: u };
      },
      onToolCall: undefined,
      generateId: () => 'generated',
      fetch: async () => new Response(bytes(fullStream(), 64), { headers: assistantStreamHeaders('acme') }),
      lastMessage: undefined,
    });
    expect(finished?.reason).toBe('stop');
    expect(finished?.usage).toEqual({ ...usage, totalTokens: 154 });
    const message = finished?.message;
    expect(message?.content).toBe('Run the installer [1].');
    expect(message?.annotations).toEqual([{ threadId: 'thr_1' }]);
    expect(message?.parts).toEqual([
      { type: 'step-start' },
      {
        type: 'tool-invocation',
        toolInvocation: {
          state: 'result',
          step: 0,
          toolCallId: 'call-1',
          toolName: 'search',
          args: { query: 'how to install' },
          result: {
            type: 'search',
            results: [{ path: 'install', url: 'https://d.example/install', metadata: { title: 'Install' } }],
          },
        },
      },
      { type: 'text', text: 'Run the installer [1].' },
      {
        type: 'source',
        source: { sourceType: 'url', id: '1', url: 'https://d.example/install', title: 'Install' },
      },
    ]);
  });
});

async function* parts(list: AnswerStreamPart[]): AsyncIterable<AnswerStreamPart> {
  for (const part of list) yield part;
}

async function collect(stream: ReadableStream<string>): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += chunk;
  return out;
}

const writeOptions = {
  messageId: 'msg-1',
  toolCallId: 'call-1',
  query: 'how to install',
  results: [{ path: 'install', url: 'https://d.example/install', title: 'Install' }],
  sources: [
    { id: '1', url: 'https://d.example/install', title: 'Install' },
    { id: '2', url: 'https://d.example/faq', title: 'FAQ' },
  ],
  threadId: 'thr_1',
};

describe('writeAnswerStream', () => {
  it('writes the whole stream, with sources for cited ids only', async () => {
    const stream = createDataStream({
      execute: async (writer) => {
        const outcome = await writeAnswerStream(
          writer,
          parts([
            { type: 'step-start' },
            { type: 'text-delta', textDelta: 'Run the ' },
            { type: 'text-delta', textDelta: 'installer [1].' },
            { type: 'finish', finishReason: 'stop', usage },
          ]),
          writeOptions,
        );
        expect(outcome).toEqual({
          text: 'Run the installer [1].',
          finishReason: 'stop',
          usage,
          citedIds: ['1'],
          aborted: false,
        });
      },
    });
    expect(await collect(stream)).toBe(fullStream());
  });

  it('ends with a masked 3: part when the answer fails', async () => {
    const stream = createDataStream({
      execute: async (writer) => {
        const outcome = await writeAnswerStream(
          writer,
          parts([
            { type: 'text-delta', textDelta: 'Partial' },
            { type: 'error', error: new Error('provider exploded') },
          ]),
          writeOptions,
        );
        expect(outcome.finishReason).toBe('error');
        expect(outcome.text).toBe('Partial');
      },
    });
    const text = await collect(stream);
    expect(text.endsWith('0:"Partial"\n3:"An error occurred."\n')).toBe(true);
    expect(text).not.toContain('provider exploded');
  });

  it('words the 3: part from the error when errorMessage is a function', async () => {
    const written: string[] = [];
    const seen: unknown[] = [];
    const failure = new Error('upstream said: quota for org-123 exceeded');
    const outcome = await writeAnswerStream(
      { write: (s) => written.push(s) },
      parts([
        { type: 'text-delta', textDelta: 'Partial' },
        { type: 'error', error: failure },
      ]),
      {
        ...writeOptions,
        errorMessage: (error) => {
          seen.push(error);
          return 'The model provider failed while answering. (request req-1)';
        },
      },
    );
    expect(seen).toEqual([failure]);
    expect(outcome.error).toBe(failure);
    expect(written.slice(-2)).toEqual([
      '0:"Partial"\n',
      '3:"The model provider failed while answering. (request req-1)"\n',
    ]);
  });

  it('stops writing when aborted', async () => {
    const controller = new AbortController();
    const written: string[] = [];
    async function* answer(): AsyncIterable<AnswerStreamPart> {
      yield { type: 'text-delta', textDelta: 'one ' };
      controller.abort();
      yield { type: 'text-delta', textDelta: 'two' };
      yield { type: 'finish', finishReason: 'stop', usage };
    }
    const outcome = await writeAnswerStream({ write: (s) => written.push(s) }, answer(), {
      ...writeOptions,
      abortSignal: controller.signal,
    });
    expect(outcome.aborted).toBe(true);
    expect(outcome.text).toBe('one ');
    expect(written.at(-1)).toBe('0:"one "\n');
  });
});

describe('coalescingWriter', () => {
  const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  /** What the v4 client reads from the bytes: every part in order, and the answer text. */
  const readWithClient = async (wire: string) => {
    const events: string[] = [];
    let text = '';
    await processDataStream({
      stream: bytes(wire, 64),
      onStartStepPart: (v) => void events.push(`start:${v.messageId}`),
      onToolCallPart: (v) => void events.push(`call:${v.toolName}`),
      onToolResultPart: (v) => void events.push(`result:${v.toolCallId}`),
      onTextPart: (v) => {
        events.push(`text:${v}`);
        text += v;
      },
      onSourcePart: (v) => void events.push(`source:${v.id}`),
      onMessageAnnotationsPart: (v) => void events.push(`annotations:${JSON.stringify(v)}`),
      onFinishStepPart: (v) => void events.push(`finish-step:${v.finishReason}`),
      onFinishMessagePart: (v) => void events.push(`finish:${v.finishReason}`),
    });
    return { events, text };
  };

  it('sends the parts of one event-loop turn as one chunk, with the same bytes', async () => {
    const chunks: string[] = [];
    const out = coalescingWriter({ write: (s) => chunks.push(s) });
    out.write(startStepPart('msg_1'));
    out.write(textPart('Hello '));
    out.write(textPart('world'));
    expect(chunks).toEqual([]);
    await turn();
    expect(chunks).toEqual(['f:{"messageId":"msg_1"}\n0:"Hello "\n0:"world"\n']);
  });

  it('keeps parts that arrive in different turns apart, so a slow model still streams', async () => {
    const chunks: string[] = [];
    const out = coalescingWriter({ write: (s) => chunks.push(s) });
    out.write(textPart('one '));
    await turn();
    out.write(textPart('two'));
    await turn();
    expect(chunks).toEqual(['0:"one "\n', '0:"two"\n']);
  });

  it('writes what is pending at once on flush, and nothing twice', async () => {
    const chunks: string[] = [];
    const out = coalescingWriter({ write: (s) => chunks.push(s) });
    out.write(textPart('a'));
    out.write(finishMessagePart('stop', usage, 'thr_1'));
    out.flush();
    expect(chunks).toEqual([
      '0:"a"\nd:{"finishReason":"stop","usage":{"promptTokens":120,"completionTokens":34},"threadId":"thr_1"}\n',
    ]);
    out.flush();
    await turn();
    expect(chunks).toHaveLength(1);
  });

  it('sends the first words at once, with the retrieval parts before them in the same chunk', async () => {
    const chunks: string[] = [];
    const out = coalescingWriter({ write: (s) => chunks.push(s) });
    let release: () => void = () => {};
    const rest = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* answer(): AsyncGenerator<AnswerStreamPart> {
      yield { type: 'text-delta', textDelta: 'Run ' };
      yield { type: 'text-delta', textDelta: 'it' };
      await rest;
      yield { type: 'text-delta', textDelta: ' [1].' };
      yield { type: 'finish', finishReason: 'stop', usage };
    }
    const writing = writeAnswerStream(out, answer(), writeOptions);
    // Still the same turn of the event loop: no setImmediate has run, and the first words are out.
    await Promise.resolve();
    await Promise.resolve();
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.startsWith('f:')).toBe(true);
    expect(chunks[0]?.endsWith('0:"Run "\n')).toBe(true);
    // Later words are batched again: the next turn sends them.
    await turn();
    await turn();
    expect(chunks).toEqual([expect.any(String), '0:"it"\n']);
    release();
    await writing;
    out.flush();
    expect(chunks.join('')).toContain('0:" [1]."\n');
  });

  it('gives a v4 client the same message as unbatched writes', async () => {
    const answer = (): AsyncIterable<AnswerStreamPart> =>
      parts([
        { type: 'text-delta', textDelta: 'Run the ' },
        { type: 'text-delta', textDelta: 'installer [1].' },
        { type: 'finish', finishReason: 'stop', usage },
      ]);
    const write = async (batched: boolean) => {
      const chunks: string[] = [];
      const stream = createDataStream({
        execute: async (writer) => {
          const out = batched ? coalescingWriter(writer) : { write: writer.write, flush: () => {} };
          await writeAnswerStream(out, answer(), writeOptions);
          out.flush();
        },
      });
      for await (const chunk of stream) chunks.push(chunk);
      const message = await readWithClient(chunks.join(''));
      return { chunks, message };
    };
    const plain = await write(false);
    const batched = await write(true);
    expect(batched.chunks.join('')).toBe(plain.chunks.join(''));
    expect(batched.chunks.length).toBeLessThan(plain.chunks.length);
    expect(batched.message).toEqual(plain.message);
    expect(batched.message.text).toBe('Run the installer [1].');
  });
});
