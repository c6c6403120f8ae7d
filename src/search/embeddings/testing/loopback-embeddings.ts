/**
 * A loopback OpenAI-style embeddings server for tests: `POST /v1/embeddings` answered in OpenAI's
 * wire format (`{ object, data: [{ object, embedding, index }], model, usage }`), so the AI SDK
 * packages run unmodified against it. Its vectors are a deterministic bag of words: each word (after
 * an optional synonym map, which stands in for what a real model knows) adds 1 to a hashed dimension,
 * so texts about the same things point the same way even when they share no word.
 */
import {
  type LoopbackRequest,
  type LoopbackServer,
  sendError,
  startLoopbackLlm,
} from '../../../assistant/providers/testing/loopback-llm.ts';

/** Dimensions of the loopback vectors: enough that a test's few dozen words rarely collide. */
export const LOOPBACK_DIMENSIONS = 256;

export type LoopbackEmbeddingsMode = 'ok' | 'fail' | 'hang';

export interface LoopbackEmbeddings {
  /** `http://127.0.0.1:<port>/v1`, a base URL as the packages take it. */
  baseUrl: string;
  requests: LoopbackRequest[];
  /** `ok` answers; `fail` answers 500 (retried by the SDK); `hang` never answers. */
  mode: LoopbackEmbeddingsMode;
  /** Every text sent to be embedded, in order. */
  inputs(): string[];
  /** When set, the vector answered for a text (a model changed behind its name, a broken one); else the bag of words. */
  vectorOf: ((text: string) => number[]) | null;
  close(): Promise<void>;
}

const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

const fnv1a = (word: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    hash ^= word.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
};

/** The loopback server's vector for `text` (not normalised: the reader must normalise, as with real models). */
export function bagOfWordsEmbedding(text: string, synonyms: Readonly<Record<string, string>> = {}): number[] {
  const vector = new Array<number>(LOOPBACK_DIMENSIONS).fill(0);
  for (const word of wordsOf(text)) {
    const canonical = Object.hasOwn(synonyms, word) ? (synonyms[word] as string) : word;
    const at = fnv1a(canonical) % LOOPBACK_DIMENSIONS;
    vector[at] = (vector[at] ?? 0) + 1;
  }
  // A text of no words still gets a direction, as a real model's would.
  if (Math.max(...vector) === 0) vector[0] = 1;
  return vector;
}

export async function startLoopbackEmbeddings(
  options: { synonyms?: Readonly<Record<string, string>> } = {},
): Promise<LoopbackEmbeddings> {
  const state: { mode: LoopbackEmbeddingsMode; vectorOf: ((text: string) => number[]) | null } = {
    mode: 'ok',
    vectorOf: null,
  };
  const server: LoopbackServer = await startLoopbackLlm((request, res) => {
    if (request.method !== 'POST' || request.path !== '/v1/embeddings') {
      sendError(res, 404, `no route ${request.method} ${request.path}`);
      return;
    }
    if (state.mode === 'hang') return;
    if (state.mode === 'fail') {
      sendError(res, 500, 'the embeddings backend is down');
      return;
    }
    const { model, input } = request.body;
    if (typeof model !== 'string' || !Array.isArray(input) || !input.every((i) => typeof i === 'string')) {
      sendError(res, 400, 'model (string) and input (array of strings) are required');
      return;
    }
    const texts = input as string[];
    const tokens = texts.reduce((sum, text) => sum + wordsOf(text).length, 0);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        data: texts.map((text, index) => ({
          object: 'embedding',
          embedding: state.vectorOf ? state.vectorOf(text) : bagOfWordsEmbedding(text, options.synonyms),
          index,
        })),
        model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      }),
    );
  });
  return {
    baseUrl: `${server.origin}/v1`,
    requests: server.requests,
    get mode() {
      return state.mode;
    },
    set mode(mode: LoopbackEmbeddingsMode) {
      state.mode = mode;
    },
    get vectorOf() {
      return state.vectorOf;
    },
    set vectorOf(vectorOf: ((text: string) => number[]) | null) {
      state.vectorOf = vectorOf;
    },
    inputs: () =>
      server.requests
        .filter((r) => r.path === '/v1/embeddings')
        .flatMap((r) => (Array.isArray(r.body.input) ? (r.body.input as string[]) : [])),
    close: () => server.close(),
  };
}
