import type {
  LanguageModelV1,
  LanguageModelV1CallOptions,
  LanguageModelV1StreamPart,
} from '@ai-sdk/provider';
import { answerChecks, checkedAnswerStream } from './answer-model.ts';
import { type RawBody, takeRawBody } from './provider-transport.ts';
import { SseDecoder } from './sse-decoder.ts';
import type { PartDecoder } from './stream-decoding.ts';

export interface DirectStreamModelOptions {
  /** The package's model, made once with the `fetch` it must use. */
  create: (fetch: typeof globalThis.fetch) => LanguageModelV1;
  /** The providers' fetch (resilient-fetch.ts over provider-transport.ts). */
  fetch: typeof globalThis.fetch;
  /** Docent's decoding of this package's stream, one per answer. */
  decoder: (model: LanguageModelV1) => PartDecoder;
}

/**
 * A provider package's model whose streamed answers Docent decodes itself, checked as the assistant
 * requires (`answerChecks`).
 *
 * Why: on Node 20 a package decodes an answer through five web-stream stages (bytes → text → events →
 * JSON checked by zod → parts), and each token pays for every stage: about 0.25 ms of CPU per token,
 * five times what receiving it costs (`npm run bench:overhead` prints both). At 32 answers streaming
 * 100 tokens/s that is most of a core, and every reader's first token waits behind it.
 *
 * The package still does everything else: it builds and sends each request, reads every failed
 * response (its `APICallError`s, and the retries before them, are unchanged), and answers `doGenerate`.
 * Only a successful response's body is taken raw (`takeRawBody`) and decoded in one pass: the body's
 * chunks → server-sent events → the package's own chunk-to-part logic, mirrored in
 * openai-chat-stream.ts and anthropic-messages-stream.ts (the differential tests hold them to the
 * package's output for the same bytes) → one ReadableStream of parts.
 *
 * The package's part ends once the response is known to be good: the `fetch` it was given then throws
 * `RESPONSE_TAKEN`, which its `doStream` passes on untouched, so it builds no stream stages of its own
 * that would only be thrown away. What the result then lacks is the package's `warnings` about call
 * settings it ignores (Docent passes none) and its `rawCall` (the request body is in `request`).
 *
 * The response is matched to its call by the call's abort signal, the one object the package hands
 * from `doStream` to `fetch` unchanged; calls that would share one get a signal of their own.
 */
export function directStreamModel(options: DirectStreamModelOptions): LanguageModelV1 {
  const calls = new WeakMap<AbortSignal, TakenResponse>();
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await options.fetch(input, init);
    const call = init?.signal ? calls.get(init.signal) : undefined;
    if (call === undefined || !response.ok) return response;
    const raw = takeRawBody(response);
    if (raw === undefined) return response;
    call.raw = raw;
    call.headers = response.headers;
    call.requestBody = typeof init?.body === 'string' ? init.body : undefined;
    throw RESPONSE_TAKEN;
  };
  const model = options.create(fetch);
  return {
    specificationVersion: 'v1',
    provider: model.provider,
    modelId: model.modelId,
    defaultObjectGenerationMode: model.defaultObjectGenerationMode,
    supportsImageUrls: model.supportsImageUrls,
    supportsStructuredOutputs: model.supportsStructuredOutputs,
    ...(model.supportsUrl ? { supportsUrl: model.supportsUrl.bind(model) } : {}),
    doGenerate: (callOptions) => model.doGenerate(callOptions),
    async doStream(callOptions: LanguageModelV1CallOptions) {
      // The caller's own signal when no other call of this model is using it (the usual case: one per
      // request); a signal made for this call otherwise.
      const caller = callOptions.abortSignal;
      const signal = caller !== undefined && !calls.has(caller) ? caller : ownSignal(caller);
      const call: TakenResponse = {};
      calls.set(signal, call);
      try {
        const result = await model.doStream({ ...callOptions, abortSignal: signal });
        // Any other fetch: the package decoded the stream itself; the assistant's checks still apply.
        return { ...result, stream: result.stream.pipeThrough(checkedAnswerStream()) };
      } catch (error) {
        if (error !== RESPONSE_TAKEN || call.raw === undefined) {
          // A body taken but the sentinel not back (a package that wrapped it): close the connection.
          call.raw?.destroy();
          throw error;
        }
      } finally {
        calls.delete(signal);
      }
      const headers: Record<string, string> = {};
      call.headers?.forEach((value, name) => {
        headers[name] = value;
      });
      return {
        stream: decodedStream(call.raw, options.decoder(model)),
        rawCall: { rawPrompt: undefined, rawSettings: {} },
        rawResponse: { headers },
        request: call.requestBody === undefined ? {} : { body: call.requestBody },
        warnings: [],
      };
    },
  };
}

/** What the `fetch` of one call kept of a successful response. */
interface TakenResponse {
  raw?: RawBody;
  headers?: Headers;
  requestBody?: string | undefined;
}

/** Thrown through the package once Docent has taken the response (see above); never escapes. */
const RESPONSE_TAKEN: unique symbol = Symbol('docent: response taken by the direct stream');

/** A signal for one call alone that aborts when `caller` does (with its reason). */
function ownSignal(caller: AbortSignal | undefined): AbortSignal {
  const own = new AbortController();
  if (caller?.aborted) own.abort(caller.reason);
  else caller?.addEventListener('abort', () => own.abort(caller.reason), { once: true });
  return own.signal;
}

/** The answer's parts, decoded from the raw body as it arrives; reading slower pauses the body. */
function decodedStream(raw: RawBody, decoder: PartDecoder): ReadableStream<LanguageModelV1StreamPart> {
  const sse = new SseDecoder();
  const checks = answerChecks();
  return new ReadableStream<LanguageModelV1StreamPart>({
    start(controller) {
      const emit = (part: LanguageModelV1StreamPart): void => controller.enqueue(checks.part(part));
      const onData = (data: string): void => decoder.event(data, emit);
      raw.read({
        data(chunk) {
          try {
            sse.push(chunk, onData);
          } catch (error) {
            // The package's transform threw (a malformed tool call): the stream fails, as there.
            raw.destroy();
            controller.error(error);
            return;
          }
          if ((controller.desiredSize ?? 0) <= 0) raw.pause();
        },
        end() {
          try {
            sse.end(onData);
            decoder.end(emit);
          } catch (error) {
            controller.error(error);
            return;
          }
          const last = checks.end();
          if (last !== undefined) controller.enqueue(last);
          controller.close();
        },
        error: (error) => controller.error(error),
      });
    },
    pull() {
      raw.resume();
    },
    cancel() {
      raw.destroy();
    },
  });
}
