import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodDetails } from '../errors/validation-details.ts';
import { MAX_ANSWER_CHARS } from './answer-stream.ts';
import {
  assistantRequestSchema,
  DEFAULT_RETRIEVAL_PAGE_SIZE,
  MAX_CONTEXT_CHARS,
  MAX_CONTEXT_ITEMS,
  MAX_MESSAGE_CHARS,
} from './request-schema.ts';
import { uiAssistantRequestSchema, uiMessageSchema } from './ui-request-schema.ts';

const user = (content = 'How do I install the CLI?', id = 'm-user') => ({
  id,
  role: 'user',
  content,
  parts: [{ type: 'text', text: content }],
});

const minimal = () => ({ fp: 'anonymous', messages: [user()] });

/** A history with every part kind, as an AI SDK v4 `useChat` with `sendExtraMessageFields` sends it. */
const fullHistory = () => ({
  id: 'chat-1',
  fp: 'user-42',
  threadId: 'thr_1',
  threadKey: 'key_1',
  retrievalPageSize: 8,
  filter: { version: 'v2', language: 'en' },
  context: [
    { type: 'code', value: 'npm i -g docent', path: 'README.md', elementId: 'code-1' },
    { type: 'textSelection', value: 'the installer' },
  ],
  currentPath: '/guides/install',
  data: { anything: true },
  messages: [
    { id: 'm0', role: 'system', content: 'Be brief.', parts: [{ type: 'text', text: 'Be brief.' }] },
    {
      id: 'm1',
      role: 'user',
      content: 'Hi',
      createdAt: '2025-01-02T03:04:05.678Z',
      parts: [{ type: 'text', text: 'Hi' }],
      experimental_attachments: [
        { name: 'a.png', contentType: 'image/png', url: 'data:image/png;base64,AAAA' },
        { url: 'https://example.com/b.txt' },
      ],
    },
    {
      id: 'm2',
      role: 'assistant',
      content: 'Hello [1]',
      createdAt: '2025-01-02T03:04:06+02:00',
      annotations: [{ threadId: 'thr_1' }, 'free-form', 3],
      revisionId: 'rev-1',
      reasoning: 'thinking',
      toolInvocations: [],
      parts: [
        { type: 'step-start' },
        {
          type: 'reasoning',
          reasoning: 'thinking',
          details: [
            { type: 'text', text: 'thinking', signature: 'sig' },
            { type: 'text', text: 'more' },
            { type: 'redacted', data: 'xxx' },
          ],
        },
        {
          type: 'tool-invocation',
          toolInvocation: {
            state: 'result',
            step: 0,
            toolCallId: 'c1',
            toolName: 'search',
            args: { query: 'hi' },
            result: { type: 'search', results: [] },
          },
        },
        { type: 'text', text: 'Hello [1]' },
        { type: 'source', source: { sourceType: 'url', id: '1', url: 'https://d.example/a', title: 'A' } },
        { type: 'source', source: { sourceType: 'url', id: '2', url: 'https://d.example/b' } },
      ],
    },
    {
      id: 'm3',
      role: 'assistant',
      content: '',
      parts: [
        // A chat stopped mid-call: both unfinished states are valid history.
        {
          type: 'tool-invocation',
          toolInvocation: { state: 'partial-call', toolCallId: 'c2', toolName: 'search' },
        },
        {
          type: 'tool-invocation',
          toolInvocation: { state: 'partial-call', toolCallId: 'c3', toolName: 'search', args: { que: 1 } },
        },
        {
          type: 'tool-invocation',
          toolInvocation: {
            state: 'call',
            step: 1,
            toolCallId: 'c4',
            toolName: 'search',
            args: { query: 'x' },
          },
        },
      ],
    },
    { id: 'm4', role: 'data', content: '{"k":1}', parts: [] },
    user('And on Windows?', 'm5'),
  ],
});

const parse = (body: unknown) => assistantRequestSchema.safeParse(body);

function rejected(body: unknown): { path: string; message: string }[] {
  const result = parse(body);
  expect(result.success).toBe(false);
  return result.success ? [] : zodDetails(result.error);
}

describe('valid requests', () => {
  it('a minimal body gets the default retrievalPageSize', () => {
    const result = parse(minimal());
    expect(result.success).toBe(true);
    expect(result.data?.retrievalPageSize).toBe(DEFAULT_RETRIEVAL_PAGE_SIZE);
    expect(result.data?.retrievalPageSize).toBe(5);
  });

  it('a history with every part kind, reasoning detail and tool invocation state', () => {
    const result = parse(fullHistory());
    expect(result.error?.issues).toBeUndefined();
    expect(result.data?.messages).toHaveLength(6);
    expect(result.data?.filter).toEqual({ version: 'v2', language: 'en' });
  });

  it('a file part of a v4 history (a file the model sent)', () => {
    const withFile = minimal();
    withFile.messages.unshift({
      id: 'm-file',
      role: 'assistant',
      content: '',
      parts: [{ type: 'file', mimeType: 'image/png', data: 'iVBORw0KGgo=' } as never],
    });
    expect(assistantRequestSchema.safeParse(withFile).success).toBe(true);
    const noMime = structuredClone(withFile);
    (noMime.messages[0]?.parts as unknown[])[0] = { type: 'file', data: 'x' };
    expect(assistantRequestSchema.safeParse(noMime).success).toBe(false);
  });

  it('unknown keys are accepted and stripped', () => {
    const result = parse({ ...minimal(), id: 'chat', extra: { x: 1 } });
    expect(result.success).toBe(true);
    expect(result.data).not.toHaveProperty('extra');
  });

  it('null threadId and filter, boundary values', () => {
    expect(parse({ ...minimal(), threadId: null, filter: null }).success).toBe(true);
    expect(parse({ ...minimal(), filter: {} }).success).toBe(true);
    expect(parse({ ...minimal(), retrievalPageSize: 1 }).success).toBe(true);
    expect(parse({ ...minimal(), retrievalPageSize: 50 }).success).toBe(true);
    expect(parse({ ...minimal(), currentPath: 'a'.repeat(200) }).success).toBe(true);
    expect(parse({ ...minimal(), context: [] }).success).toBe(true);
    // Any number of messages: clients send the whole chat with every question (the body's size bounds it).
    expect(parse({ ...minimal(), messages: Array.from({ length: 1_001 }, () => user()) }).success).toBe(true);
  });
});

describe('invalid requests', () => {
  it('empty or missing fp', () => {
    expect(rejected({ ...minimal(), fp: '' })[0]?.path).toBe('fp');
    expect(rejected({ messages: [user()] })[0]?.path).toBe('fp');
    expect(rejected({ ...minimal(), fp: 7 })[0]?.path).toBe('fp');
  });

  it('missing or empty messages', () => {
    expect(rejected({ fp: 'anonymous' })[0]?.path).toBe('messages');
    expect(rejected({ fp: 'anonymous', messages: [] })[0]?.path).toBe('messages');
    expect(rejected({ fp: 'anonymous', messages: 'hi' })[0]?.path).toBe('messages');
  });

  it('the last message must be from the user', () => {
    const body = minimal();
    const details = rejected({
      ...body,
      messages: [...body.messages, { id: 'a', role: 'assistant', content: 'x', parts: [] }],
    });
    expect(details).toEqual([
      { path: 'messages.1.role', message: 'the last message must be from the user (got "assistant")' },
    ]);
  });

  it('the last message must hold a question: text, in its content or its text parts', () => {
    const blank = { fp: 'x', messages: [user('How do I install the CLI?', 'm0'), user('  \n ')] };
    expect(rejected(blank)).toEqual([
      { path: 'messages.1.content', message: 'the last message must hold the question' },
    ]);
    const fileOnly = { ...user(''), parts: [{ type: 'file', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] };
    expect(rejected({ fp: 'x', messages: [fileOnly] })[0]?.message).toBe(
      'the last message must hold the question',
    );
    // An earlier blank question is history (left out of what the model is given), not a refusal.
    expect(parse({ fp: 'x', messages: [user(' ', 'm0'), user()] }).success).toBe(true);
    // The text in parts alone (the content empty) is a question.
    expect(
      parse({ fp: 'x', messages: [{ ...user(''), parts: [{ type: 'text', text: 'Hi?' }] }] }).success,
    ).toBe(true);
  });

  it('a message deep in a long chat is checked where it is', () => {
    const messages = Array.from({ length: 300 }, () => user());
    // Each part within its limit, the message's text parts together over it.
    const half = { type: 'text', text: 'a'.repeat(MAX_MESSAGE_CHARS / 2 + 1) };
    messages[250] = { ...user(), parts: [half, half] };
    expect(rejected({ fp: 'x', messages })).toEqual([
      {
        path: 'messages.250.parts',
        message: `at most ${MAX_MESSAGE_CHARS} characters of text per message (its text parts together)`,
      },
    ]);
  });

  it('content too long', () => {
    expect(rejected({ fp: 'x', messages: [user('a'.repeat(MAX_MESSAGE_CHARS + 1))] })[0]?.path).toBe(
      'messages.0.content',
    );
  });

  it('content too long, named where it is, in a question but not in an answer of the history', () => {
    const long = 'a'.repeat(MAX_MESSAGE_CHARS + 1);
    const tooLong = 'String must contain at most 64000 character(s)';
    const reasoning = { type: 'reasoning', reasoning: long, details: [] };
    expect(
      rejected({ fp: 'x', messages: [{ ...user(long), parts: [{ type: 'text', text: long }, reasoning] }] }),
    ).toEqual([
      { path: 'messages.0.content', message: tooLong },
      { path: 'messages.0.parts.0.text', message: tooLong },
      { path: 'messages.0.parts.1.reasoning', message: tooLong },
      {
        path: 'messages.0.parts',
        message: `at most ${MAX_MESSAGE_CHARS} characters of text per message (its text parts together)`,
      },
    ]);
    expect(rejected({ fp: 'x', messages: [{ ...user(long), role: 'system' }, user()] })).toEqual([
      { path: 'messages.0.content', message: tooLong },
      { path: 'messages.0.parts.0.text', message: tooLong },
    ]);
    // An answer of Docent's may reach MAX_ANSWER_CHARS; a v4 useChat keeps it in `content` and a text
    // part and sends it back with every later question, which were all refused (400) for good.
    const answer = 'z'.repeat(MAX_ANSWER_CHARS);
    const history = [
      user(),
      {
        id: 'a',
        role: 'assistant',
        content: answer,
        parts: [{ type: 'step-start' }, { type: 'text', text: answer }],
      },
      user('And on Windows?', 'm2'),
    ];
    expect(parse({ fp: 'x', messages: history }).success).toBe(true);
    const v2 = uiAssistantRequestSchema.safeParse({
      fp: 'x',
      messages: [
        { id: 'u', role: 'user', parts: [{ type: 'text', text: 'How do I install the CLI?' }] },
        { id: 'a', role: 'assistant', parts: [{ type: 'text', text: answer, state: 'done' }] },
        { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'And on Windows?' }] },
      ],
    });
    expect(v2.success).toBe(true);
  });

  it('text parts that are each within the limit but not together', () => {
    const pieces = (n: number, size: number) =>
      Array.from({ length: n }, () => ({ type: 'text', text: 'a'.repeat(size) }));
    const over = { ...user('q'), parts: pieces(2, MAX_MESSAGE_CHARS / 2) };
    const problem = { path: 'messages.0.parts', message: expect.stringContaining(`${MAX_MESSAGE_CHARS}`) };
    expect(rejected({ fp: 'x', messages: [over] })).toEqual([problem]);
    const v2 = uiAssistantRequestSchema.safeParse({
      fp: 'x',
      messages: [{ id: 'm', role: 'user', parts: over.parts }],
    });
    expect(v2.success ? [] : zodDetails(v2.error)).toEqual([problem]);
    // An answer in the history may be longer: only the body's size bounds it.
    const answer = { ...over, role: 'assistant' };
    expect(parse({ fp: 'x', messages: [answer, user('q', 'm2')] }).success).toBe(true);
    // Joined with a newline between parts, as the question is read: exactly the limit passes.
    const at = [...pieces(1, MAX_MESSAGE_CHARS / 2), ...pieces(1, MAX_MESSAGE_CHARS / 2 - 1)];
    const empty = { type: 'text', text: '' };
    expect(parse({ fp: 'x', messages: [{ ...user('q'), parts: [...at, empty] }] }).success).toBe(true);
  });

  it('bad role', () => {
    expect(rejected({ fp: 'x', messages: [{ ...user(), role: 'bot' }] })[0]?.path).toBe('messages.0.role');
  });

  it('wrong types in a message', () => {
    expect(rejected({ fp: 'x', messages: [{ ...user(), id: 1 }] })[0]?.path).toBe('messages.0.id');
    expect(rejected({ fp: 'x', messages: [{ ...user(), content: null }] })[0]?.path).toBe(
      'messages.0.content',
    );
    expect(rejected({ fp: 'x', messages: [{ ...user(), parts: undefined }] })[0]?.path).toBe(
      'messages.0.parts',
    );
    expect(rejected({ fp: 'x', messages: [{ ...user(), createdAt: 'yesterday' }] })[0]?.path).toBe(
      'messages.0.createdAt',
    );
    expect(rejected({ fp: 'x', messages: [{ ...user(), annotations: {} }] })[0]?.path).toBe(
      'messages.0.annotations',
    );
    expect(
      rejected({ fp: 'x', messages: [{ ...user(), experimental_attachments: [{ name: 'a' }] }] })[0]?.path,
    ).toBe('messages.0.experimental_attachments.0.url');
  });

  it('bad parts', () => {
    const withPart = (part: unknown) => ({ fp: 'x', messages: [{ ...user(), parts: [part] }] });
    expect(rejected(withPart({ type: 'image', url: 'x' }))[0]?.path).toBe('messages.0.parts.0.type');
    expect(rejected(withPart({ type: 'text', text: 5 }))[0]?.path).toBe('messages.0.parts.0.text');
    expect(rejected(withPart({ type: 'reasoning', reasoning: 'r' }))[0]?.path).toBe(
      'messages.0.parts.0.details',
    );
    expect(
      rejected(withPart({ type: 'reasoning', reasoning: 'r', details: [{ type: 'redacted' }] }))[0]?.path,
    ).toBe('messages.0.parts.0.details.0.data');
    expect(
      rejected(withPart({ type: 'source', source: { sourceType: 'file', id: '1', url: 'u' } }))[0]?.path,
    ).toBe('messages.0.parts.0.source.sourceType');
  });

  it('bad tool invocations', () => {
    const withInvocation = (toolInvocation: unknown) => ({
      fp: 'x',
      messages: [{ ...user(), parts: [{ type: 'tool-invocation', toolInvocation }] }],
    });
    const base = { toolCallId: 'c', toolName: 'search', args: {} };
    expect(rejected(withInvocation({ ...base, state: 'done' }))[0]?.path).toBe(
      'messages.0.parts.0.toolInvocation.state',
    );
    expect(rejected(withInvocation({ ...base, state: 'result' }))[0]?.path).toBe(
      'messages.0.parts.0.toolInvocation.result',
    );
    expect(rejected(withInvocation({ state: 'call', toolCallId: 'c', toolName: 'search' }))[0]?.path).toBe(
      'messages.0.parts.0.toolInvocation.args',
    );
    expect(rejected(withInvocation({ ...base, state: 'call', step: 'one' }))[0]?.path).toBe(
      'messages.0.parts.0.toolInvocation.step',
    );
    expect(rejected(withInvocation({ ...base, state: 'call', toolName: 3 }))[0]?.path).toBe(
      'messages.0.parts.0.toolInvocation.toolName',
    );
  });

  it('currentPath over 200 characters', () => {
    expect(rejected({ ...minimal(), currentPath: 'a'.repeat(201) })[0]?.path).toBe('currentPath');
  });

  it('retrievalPageSize 0, 51, 2.5 or a string', () => {
    for (const value of [0, 51, 2.5, '5']) {
      expect(rejected({ ...minimal(), retrievalPageSize: value })[0]?.path).toBe('retrievalPageSize');
    }
  });

  it('bad filter, context and thread fields', () => {
    expect(rejected({ ...minimal(), filter: { version: 2 } })[0]?.path).toBe('filter.version');
    expect(rejected({ ...minimal(), filter: 'v2' })[0]?.path).toBe('filter');
    expect(rejected({ ...minimal(), context: [{ type: 'image', value: 'x' }] })[0]?.path).toBe(
      'context.0.type',
    );
    expect(rejected({ ...minimal(), context: [{ type: 'code' }] })[0]?.path).toBe('context.0.value');
    expect(rejected({ ...minimal(), context: { type: 'code', value: 'x' } })[0]?.path).toBe('context');
    const many = Array.from({ length: MAX_CONTEXT_ITEMS + 1 }, () => ({ type: 'code', value: 'x' }));
    expect(rejected({ ...minimal(), context: many })[0]?.path).toBe('context');
    expect(
      rejected({ ...minimal(), context: [{ type: 'code', value: 'x'.repeat(MAX_CONTEXT_CHARS + 1) }] })[0]
        ?.path,
    ).toBe('context.0.value');
    expect(rejected({ ...minimal(), threadId: 5 })[0]?.path).toBe('threadId');
  });

  it('details list every problem with a path and a message', () => {
    const details = rejected({ fp: '', messages: [{ ...user(), role: 'bot' }], retrievalPageSize: 0 });
    expect(details.map((d) => d.path).sort()).toEqual(['fp', 'messages.0.role', 'retrievalPageSize']);
    for (const detail of details) expect(detail.message.length).toBeGreaterThan(0);
  });

  it('a body that is not an object', () => {
    expect(rejected('hello')).toEqual([{ path: '', message: 'Expected object, received string' }]);
    expect(rejected(null)[0]?.path).toBe('');
  });
});

describe('a v4 useChat body without sendExtraMessageFields', () => {
  // Found by QA: `useChat` leaves message ids out unless `sendExtraMessageFields: true` (off by default),
  // and the 400 only said "Required" at messages.0.id, naming no setting.
  it('names the setting the endpoint needs', () => {
    const { id: _id, ...withoutId } = user();
    const details = rejected({ id: 'chat-1', fp: 'anonymous', messages: [withoutId] });
    expect(details).toEqual([
      {
        path: 'messages.0.id',
        message: expect.stringContaining('sendExtraMessageFields: true'),
      },
    ]);
  });
});

describe('a v1 body sent to the v2 endpoint', () => {
  it('says v2 messages hold their text in parts, and where a v1 message goes', () => {
    const parsed = uiAssistantRequestSchema.safeParse({
      fp: 'anonymous',
      messages: [{ id: 'm1', role: 'user', content: 'How do I rotate keys?' }],
    });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const details = zodDetails(parsed.error);
    expect(details).toContainEqual(
      expect.objectContaining({
        path: 'messages.0.parts',
        message: expect.stringContaining('for POST /v1/assistant/{domain}/message'),
      }),
    );
  });
});

describe('the v2 body', () => {
  // Found by QA: a refinement on every part and on every message cost about 8 µs each, so one 1 MB body of
  // 76,000 one-key parts held the event loop for 0.7 s (four at once stalled /healthz for 2.8 s). The
  // checks are the body's now; each part and message is a plain object schema.
  it('checks parts and messages without a refinement of their own', () => {
    const messages = uiAssistantRequestSchema.innerType().shape.messages.element;
    expect(messages).toBeInstanceOf(z.ZodObject);
    expect(uiMessageSchema.shape.parts.element).toBeInstanceOf(z.ZodObject);
  });

  it('still names the text part or the message over a limit, or a text part without text', () => {
    const text = (t: unknown) => ({ type: 'text', text: t });
    const parsed = uiAssistantRequestSchema.safeParse({
      fp: 'anonymous',
      messages: [
        { id: 'a', role: 'assistant', parts: [{ type: 'step-start' }, text(7)] },
        { id: 'b', role: 'user', parts: [text('x'.repeat(MAX_MESSAGE_CHARS + 1))] },
        { id: 'c', role: 'user', parts: [text('x'.repeat(MAX_MESSAGE_CHARS)), text('y')] },
      ],
    });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(zodDetails(parsed.error)).toEqual([
      { path: 'messages.0.parts.1.text', message: 'a text part needs a string text' },
      { path: 'messages.1.parts.0.text', message: `at most ${MAX_MESSAGE_CHARS} characters per text part` },
      {
        path: 'messages.1.parts',
        message: `at most ${MAX_MESSAGE_CHARS} characters of text per message (its text parts together)`,
      },
      {
        path: 'messages.2.parts',
        message: `at most ${MAX_MESSAGE_CHARS} characters of text per message (its text parts together)`,
      },
    ]);
  });
});
