/**
 * The streaming wire formats the loopback servers speak, each as the provider sends it (the chunk shapes
 * are those the installed `@ai-sdk/*` packages parse): OpenAI chat completions and Responses SSE,
 * Anthropic messages SSE, Gemini `streamGenerateContent?alt=sse`, Mistral chat SSE and Bedrock
 * ConverseStream's binary `application/vnd.amazon.eventstream` frames.
 */
import type http from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface ScriptedStream {
  /** Text deltas, in order. */
  tokens: readonly string[];
  /** Wait before the response headers. */
  headerDelayMs?: number;
  /** Wait before the first token (after the headers). */
  firstTokenDelayMs?: number;
  /** Wait between tokens. */
  tokenDelayMs?: number;
  /**
   * How the stream ends after the tokens: `finish` (normally, with usage), `destroy` (the socket is cut),
   * `end` (the response ends cleanly without a finish reason), `stall` (nothing more is sent; the
   * connection stays open until the client gives up), `error` (the provider's in-stream error event).
   */
  ending?: 'finish' | 'destroy' | 'end' | 'stall' | 'error';
  /**
   * Sends an SSE comment (`: keep-alive`) this often from the headers until the stream ends, as proxies
   * (OpenRouter, gateways) do while a model is slow.
   */
  keepAliveMs?: number;
  usage?: { input: number; output: number };
  /**
   * Function calls after the tokens (OpenAI chat and Anthropic wires), the arguments in two pieces as real
   * servers split them: `tool_calls` deltas or `tool_use` blocks with `input_json_delta`s.
   */
  toolCalls?: readonly ToolCall[];
}

type ToolCall = { id: string; name: string; arguments: string };
type Frame = string | Uint8Array;
type Usage = { input: number; output: number };
type Names = [input: string, output: string, total: string];

/** One stream of a wire format: its frames before, for and after the tokens, and its in-stream error. */
export type Wire = (
  model: string,
  usage: Usage,
) => {
  contentType?: string;
  head: Frame[];
  token(text: string): Frame;
  tail(calls: readonly ToolCall[]): Frame[];
  /** Absent when the wire has no in-stream error (the connection is cut instead). */
  error?: Frame;
};

export async function writeWire(
  res: http.ServerResponse,
  wire: Wire,
  script: ScriptedStream,
  model = 'loopback',
): Promise<void> {
  const stream = wire(model, script.usage ?? { input: 0, output: 0 });
  await sleep(script.headerDelayMs ?? 0);
  const contentType = stream.contentType ?? 'text/event-stream';
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache' });
  for (const frame of stream.head) res.write(frame);
  if (script.keepAliveMs !== undefined) {
    if (contentType !== 'text/event-stream') throw new Error('this wire has no keep-alive');
    const keepAlive = setInterval(() => {
      if (!res.writableEnded && !res.destroyed) res.write(': keep-alive\n\n');
    }, script.keepAliveMs);
    res.once('close', () => clearInterval(keepAlive));
  }
  await sleep(script.firstTokenDelayMs ?? 0);
  for (const [i, token] of script.tokens.entries()) {
    if (i > 0) await sleep(script.tokenDelayMs ?? 0);
    if (res.destroyed) return;
    res.write(stream.token(token));
  }
  if (res.destroyed) return;
  const ending = script.ending ?? 'finish';
  if (ending === 'destroy') {
    // Let the written tokens reach the client first, then cut the connection without ending the response.
    await sleep(20);
    res.destroy();
  }
  if (ending === 'destroy' || ending === 'stall') return;
  if (ending === 'error' && stream.error === undefined) throw new Error('this wire has no in-stream error');
  const last = { finish: stream.tail(script.toolCalls ?? []), error: [stream.error ?? ''], end: [] }[ending];
  for (const frame of last) res.write(frame);
  res.end();
}

const data = (value: unknown, end = '\n\n'): string => `data: ${JSON.stringify(value)}${end}`;
const event = (name: string, value: unknown): string => `event: ${name}\n${data(value)}`;
const halves = (text: string) => [text.slice(0, text.length >> 1), text.slice(text.length >> 1)];
/** Token counts under a provider's names: input, output, total. */
const counts = (u: Usage, [i, o, t]: Names) => ({ [i]: u.input, [o]: u.output, [t]: u.input + u.output });
const CHAT = { id: 'chatcmpl-loopback', object: 'chat.completion.chunk', created: 1_700_000_000 };
/** An OpenAI-style chat completion chunk (OpenAI and Mistral), with one choice or none. */
const chatChunk = (model: string, delta: unknown, finish: string | null = null, extra = {}) => {
  const choices = delta === null ? [] : [{ index: 0, delta, finish_reason: finish }];
  return data({ ...CHAT, model, choices, ...extra });
};
const CHAT_USAGE: Names = ['prompt_tokens', 'completion_tokens', 'total_tokens'];

/** OpenAI chat completions (`stream: true`, the usage chunk as with `stream_options.include_usage`). */
export const openaiChatWire: Wire = (model, usage) => ({
  head: [chatChunk(model, { role: 'assistant', content: '' })],
  token: (content) => chatChunk(model, { content }),
  tail: (calls) => [
    ...calls.flatMap((call, index) =>
      halves(call.arguments).map((args, piece) =>
        chatChunk(model, {
          tool_calls: [
            piece === 0
              ? { index, id: call.id, type: 'function', function: { name: call.name, arguments: args } }
              : { index, function: { arguments: args } },
          ],
        }),
      ),
    ),
    chatChunk(model, {}, calls.length > 0 ? 'tool_calls' : 'stop'),
    chatChunk(model, null, null, { usage: counts(usage, CHAT_USAGE) }),
    'data: [DONE]\n\n',
  ],
  // OpenAI reports an error inside a stream as a chunk with an `error` object.
  error: data({ error: { message: 'The server had an error', type: 'server_error' } }),
});

/** Mistral chat completions: `content` in every delta, the usage in the chunk with the finish reason. */
export const mistralWire: Wire = (model, usage) => ({
  head: [chatChunk(model, { role: 'assistant', content: '' })],
  token: (content) => chatChunk(model, { content }),
  tail: () => [
    chatChunk(model, { content: '' }, 'stop', { usage: counts(usage, CHAT_USAGE) }),
    'data: [DONE]\n\n',
  ],
});

/** Anthropic messages. */
export const anthropicWire: Wire = (model, usage) => {
  const block = (type: string, index: number, extra: Record<string, unknown> = {}) =>
    event(type, { type, index, ...extra });
  const message = { id: 'msg_loopback', type: 'message', role: 'assistant', model, content: [] };
  const started = { ...message, stop_reason: null, stop_sequence: null };
  return {
    head: [
      event('message_start', {
        type: 'message_start',
        message: { ...started, usage: { input_tokens: usage.input, output_tokens: 1 } },
      }),
      block('content_block_start', 0, { content_block: { type: 'text', text: '' } }),
      event('ping', { type: 'ping' }),
    ],
    token: (text) => block('content_block_delta', 0, { delta: { type: 'text_delta', text } }),
    tail: (calls) => [
      block('content_block_stop', 0),
      ...calls.flatMap((call, i) => [
        block('content_block_start', i + 1, {
          content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
        }),
        ...halves(call.arguments).map((partial_json) =>
          block('content_block_delta', i + 1, { delta: { type: 'input_json_delta', partial_json } }),
        ),
        block('content_block_stop', i + 1),
      ]),
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: usage.output },
      }),
      event('message_stop', { type: 'message_stop' }),
    ],
    error: event('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
  };
};

/** OpenAI Responses API: every event named and numbered, the usage on `response.completed`. */
export const openaiResponsesWire: Wire = (model, usage) => {
  let sequence = 0;
  const next = (type: string, value: Record<string, unknown>) =>
    event(type, { type, sequence_number: sequence++, ...value });
  const response = (status: string, extra = {}) => ({
    response: { id: 'resp_loopback', object: 'response', created_at: 1_700_000_000, model, status, ...extra },
  });
  const message = { id: 'msg_loopback', type: 'message', role: 'assistant', content: [] };
  const item = (status: string) => ({ output_index: 0, item: { ...message, status } });
  const part = { item_id: 'msg_loopback', output_index: 0, content_index: 0 };
  const tokens = counts(usage, ['input_tokens', 'output_tokens', 'total_tokens']);
  const done = response('completed', { usage: { ...tokens, input_tokens_details: { cached_tokens: 0 } } });
  const textPart = { type: 'output_text', text: '', annotations: [] };
  return {
    head: [
      next('response.created', response('in_progress', { output: [] })),
      next('response.output_item.added', item('in_progress')),
      next('response.content_part.added', { ...part, part: textPart }),
    ],
    token: (delta) => next('response.output_text.delta', { ...part, delta, logprobs: [] }),
    tail: () => [next('response.output_item.done', item('completed')), next('response.completed', done)],
    error: next('error', { code: 'server_error', message: 'The server had an error', param: null }),
  };
};

const CRLF = '\r\n\r\n';
/** Gemini `streamGenerateContent?alt=sse` (CRLF-separated events, as Google sends them). */
export const googleWire: Wire = (model, usage) => {
  const meta = { modelVersion: model, responseId: 'loopback' };
  const chunk = (text: string, usageMetadata: Record<string, number>, finish = {}) => {
    const candidate = { content: { parts: [{ text }], role: 'model' }, ...finish, index: 0 };
    return data({ candidates: [candidate], usageMetadata, ...meta }, CRLF);
  };
  const total = counts(usage, ['promptTokenCount', 'candidatesTokenCount', 'totalTokenCount']);
  const error = { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' };
  return {
    head: [],
    token: (text) => chunk(text, { promptTokenCount: usage.input, totalTokenCount: usage.input }),
    tail: () => [chunk('', total, { finishReason: 'STOP' })],
    error: data({ error }, CRLF),
  };
};

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const bedrockFrame = (kind: 'event' | 'exception', type: string, body: unknown): Uint8Array => {
  const header = (value: string) => ({ type: 'string' as const, value });
  const headers = {
    ':message-type': header(kind),
    [kind === 'event' ? ':event-type' : ':exception-type']: header(type),
    ':content-type': header('application/json'),
  };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(body)) });
};

/** Bedrock ConverseStream: binary event-stream frames, each event's JSON padded with `p` as AWS does. */
export const bedrockWire: Wire = (_model, usage) => {
  const frame = (type: string, body: Record<string, unknown>) =>
    bedrockFrame('event', type, { ...body, p: 'abcd' });
  const tokens = counts(usage, ['inputTokens', 'outputTokens', 'totalTokens']);
  return {
    contentType: 'application/vnd.amazon.eventstream',
    head: [frame('messageStart', { role: 'assistant' })],
    token: (text) => frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text } }),
    tail: () => [
      frame('contentBlockStop', { contentBlockIndex: 0 }),
      frame('messageStop', { stopReason: 'end_turn' }),
      frame('metadata', { usage: tokens, metrics: { latencyMs: 42 } }),
    ],
    error: bedrockFrame('exception', 'modelStreamErrorException', { message: 'The model stream failed' }),
  };
};
