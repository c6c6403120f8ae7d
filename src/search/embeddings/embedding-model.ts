import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import type { EmbeddingsConfig } from '../../config.ts';

/** Turns texts into vectors, one per text, in order. The one seam between Docent and a provider. */
export interface EmbeddingModel {
  /**
   * `provider:model`, stored beside each vector: vectors of different models are not comparable, so a
   * changed model is recomputed rather than mixed in.
   */
  id: string;
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

export interface EmbeddingModelOptions {
  /**
   * Retries per provider call (the AI SDK's: 408/409/429/5xx and connection failures, with backoff).
   * Ingestion may wait; a reader's query may not, so it passes 0.
   */
  maxRetries?: number;
  /** For tests; the packages otherwise use the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/** Retries of one provider call when the caller does not say. */
export const DEFAULT_EMBED_RETRIES = 2;
/**
 * Retries of a reader's query: none. The SDK waits seconds before a retry, longer than a query may
 * wait (`QUERY_EMBEDDING_TIMEOUT_MS`); the search goes on by words instead.
 */
export const QUERY_EMBED_RETRIES = 0;

/** The models a process uses: ingestion's (retried) and queries' (not), both on one configuration. */
export interface EmbeddingModels {
  ingestion: EmbeddingModel;
  query: EmbeddingModel;
}

/** `DOCENT_EMBEDDINGS` as the models a server or CLI command passes on; null when it is not set. */
export function embeddingModelsFor(config: EmbeddingsConfig | null): EmbeddingModels | null {
  if (config === null) return null;
  return {
    ingestion: createEmbeddingModel(config),
    query: createEmbeddingModel(config, { maxRetries: QUERY_EMBED_RETRIES }),
  };
}

/**
 * Most bytes of one embeddings response. A batch's answer is a few megabytes at most (64 vectors of
 * 3,072 dimensions as JSON numbers: about 5 MB); the packages read a whole body into memory before
 * parsing it, so a server that sends without end (a broken proxy, the wrong endpoint) would take the
 * process's memory with it: 400 MB of body took an ingestion to 4 GB.
 */
export const MAX_EMBEDDINGS_RESPONSE_BYTES = 32 * 1024 * 1024;

/** A response past `MAX_EMBEDDINGS_RESPONSE_BYTES`. */
export class EmbeddingsResponseTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`the embeddings response is larger than ${maxBytes} bytes`);
    this.name = 'EmbeddingsResponseTooLargeError';
  }
}

/** `fetch` whose response bodies fail past `maxBytes` (by their `Content-Length`, or as they arrive). */
export function sizeLimitedFetch(fetch: typeof globalThis.fetch, maxBytes: number): typeof globalThis.fetch {
  const tooLarge = () => new EmbeddingsResponseTooLargeError(maxBytes);
  return async (input, init) => {
    const response = await fetch(input, init);
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw tooLarge();
    }
    if (response.body === null) return response;
    let received = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          received += chunk.byteLength;
          if (received > maxBytes) controller.error(tooLarge());
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The provider package's embeddings model; loaded on first use so a server without embeddings loads none. */
async function providerModel(
  config: EmbeddingsConfig,
  fetch: typeof globalThis.fetch | undefined,
): Promise<EmbeddingModelV3> {
  const transport = {
    fetch: sizeLimitedFetch(
      (input, init) => (fetch ?? globalThis.fetch)(input, init),
      MAX_EMBEDDINGS_RESPONSE_BYTES,
    ),
  };
  if (config.provider === 'openai') {
    const { createOpenAI } = await import('@ai-sdk/openai');
    // The key is always passed ('' when unset): the package would otherwise read the environment, and
    // config.ts is its one reader.
    return createOpenAI({
      apiKey: config.apiKey ?? '',
      ...(config.baseUrl ? { baseURL: config.baseUrl } : {}),
      ...transport,
    }).embedding(config.model);
  }
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  return createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: config.baseUrl ?? '',
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...transport,
  }).embeddingModel(config.model);
}

/**
 * The embeddings model `DOCENT_EMBEDDINGS` names, through the AI SDK's `embedMany`: it splits a call
 * larger than the model's `maxEmbeddingsPerCall` and retries failed calls.
 */
export function createEmbeddingModel(
  config: EmbeddingsConfig,
  options: EmbeddingModelOptions = {},
): EmbeddingModel {
  let loaded: Promise<EmbeddingModelV3> | undefined;
  const model = (): Promise<EmbeddingModelV3> => {
    if (loaded === undefined) {
      loaded = providerModel(config, options.fetch);
      loaded.catch(() => {
        loaded = undefined;
      });
    }
    return loaded;
  };
  return {
    id: `${config.provider}:${config.model}`,
    embed: async (texts, signal) => {
      if (texts.length === 0) return [];
      const { embedMany } = await import('ai');
      const { embeddings } = await embedMany({
        model: await model(),
        values: texts,
        maxRetries: options.maxRetries ?? DEFAULT_EMBED_RETRIES,
        // Concurrency is the caller's (ingestion bounds it across batches).
        maxParallelCalls: 1,
        ...(signal ? { abortSignal: signal } : {}),
      }).catch((error: unknown) => {
        // The package reports a body it could not read as "Failed to process successful response".
        const cause = error instanceof Error ? error.cause : undefined;
        if (cause instanceof EmbeddingsResponseTooLargeError) throw cause;
        // The message becomes an ingestion warning a site's owner reads: a server echoing the key it was
        // sent must not show the operator's key to every tenant.
        const key = config.apiKey;
        if (key && error instanceof Error && error.message.includes(key))
          throw new Error(error.message.replaceAll(key, '[redacted]'));
        throw error;
      });
      if (embeddings.length !== texts.length)
        throw new Error(
          `the embeddings model returned ${embeddings.length} vectors for ${texts.length} texts`,
        );
      return embeddings;
    },
  };
}
