import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddingModel, MAX_EMBEDDINGS_RESPONSE_BYTES } from './embedding-model.ts';
import {
  bagOfWordsEmbedding,
  type LoopbackEmbeddings,
  startLoopbackEmbeddings,
} from './testing/loopback-embeddings.ts';

describe('createEmbeddingModel against a loopback OpenAI embeddings server', () => {
  let server: LoopbackEmbeddings;
  beforeAll(async () => {
    server = await startLoopbackEmbeddings();
  });
  afterAll(async () => {
    await server.close();
  });

  it('speaks OpenAI’s wire format through @ai-sdk/openai, with the key as a bearer token', async () => {
    server.mode = 'ok';
    const from = server.requests.length;
    const model = createEmbeddingModel({
      provider: 'openai',
      model: 'text-embedding-3-small',
      apiKey: 'sk-loopback',
      baseUrl: server.baseUrl,
    });
    expect(model.id).toBe('openai:text-embedding-3-small');
    const vectors = await model.embed(['install the widget', 'rotate an API key']);
    expect(vectors).toEqual([
      bagOfWordsEmbedding('install the widget'),
      bagOfWordsEmbedding('rotate an API key'),
    ]);
    const request = server.requests[from];
    expect(request?.headers.authorization).toBe('Bearer sk-loopback');
    expect(request?.body).toMatchObject({
      model: 'text-embedding-3-small',
      input: ['install the widget', 'rotate an API key'],
      encoding_format: 'float',
    });
    expect(await model.embed([])).toEqual([]);
    expect(server.requests.length).toBe(from + 1);
  });

  it('speaks the same format through @ai-sdk/openai-compatible (Ollama, vLLM…), key optional', async () => {
    server.mode = 'ok';
    const from = server.requests.length;
    const model = createEmbeddingModel({
      provider: 'openai-compatible',
      model: 'nomic-embed-text',
      apiKey: null,
      baseUrl: server.baseUrl,
    });
    expect(model.id).toBe('openai-compatible:nomic-embed-text');
    expect(await model.embed(['hello'])).toEqual([bagOfWordsEmbedding('hello')]);
    const request = server.requests[from];
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toMatchObject({
      model: 'nomic-embed-text',
      input: ['hello'],
      encoding_format: 'float',
    });
  });

  it('retries a failing server, then fails', async () => {
    server.mode = 'fail';
    const from = server.requests.length;
    const model = createEmbeddingModel(
      { provider: 'openai-compatible', model: 'm', apiKey: null, baseUrl: server.baseUrl },
      { maxRetries: 1 },
    );
    await expect(model.embed(['hello'])).rejects.toThrow(/embeddings backend is down/);
    expect(server.requests.length - from).toBe(2);
    server.mode = 'ok';
  });

  it('keeps its API key out of an error a server echoes it in (the message becomes an owner-visible warning)', async () => {
    const echoing: typeof fetch = async (_input, init) =>
      new Response(
        JSON.stringify({
          error: { message: `key ${new Headers(init?.headers).get('authorization')} refused` },
        }),
        { status: 401, headers: { 'content-type': 'application/json' } },
      );
    const model = createEmbeddingModel(
      { provider: 'openai', model: 'm', apiKey: 'sk-operators-secret', baseUrl: 'http://127.0.0.1:9/v1' },
      { maxRetries: 0, fetch: echoing },
    );
    const failure = (await model.embed(['hello']).then(
      () => new Error('resolved'),
      (error: unknown) => error,
    )) as Error;
    expect(failure.message).toContain('refused');
    expect(failure.message).toContain('[redacted]');
    expect(failure.message).not.toContain('sk-operators-secret');
  });

  it('fails a response larger than MAX_EMBEDDINGS_RESPONSE_BYTES, without retrying or reading it all', async () => {
    let calls = 0;
    let sent = 0;
    const endless: typeof fetch = async () => {
      calls++;
      const piece = new TextEncoder().encode('1.0,'.repeat(16_384));
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"object":"list","data":[{"index":0,"embedding":['));
        },
        pull(controller) {
          sent += piece.byteLength;
          controller.enqueue(piece);
        },
      });
      return new Response(body, { headers: { 'content-type': 'application/json' } });
    };
    const model = createEmbeddingModel(
      { provider: 'openai-compatible', model: 'm', apiKey: null, baseUrl: server.baseUrl },
      { fetch: endless },
    );
    await expect(model.embed(['hello'])).rejects.toThrow(/embeddings response is larger than/);
    expect(calls).toBe(1);
    expect(sent).toBeLessThan(MAX_EMBEDDINGS_RESPONSE_BYTES + 1_000_000);

    // A declared length past the limit fails before any of the body is read.
    const declared: typeof fetch = async () =>
      new Response('{}', {
        headers: {
          'content-type': 'application/json',
          'content-length': String(MAX_EMBEDDINGS_RESPONSE_BYTES + 1),
        },
      });
    await expect(
      createEmbeddingModel(
        { provider: 'openai', model: 'm', apiKey: 'k', baseUrl: server.baseUrl },
        { fetch: declared, maxRetries: 0 },
      ).embed(['hello']),
    ).rejects.toThrow(/embeddings response is larger than/);
  });
});
