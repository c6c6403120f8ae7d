import crypto from 'node:crypto';
import type { LanguageModelV1Prompt } from '@ai-sdk/provider';
import { createDataStreamResponse } from 'ai';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { authenticateAssistant } from '../../assistant/authenticate.ts';
import { builtinModelProvider, type ModelProvider } from '../../assistant/model-provider.ts';
import { awaitAnswerStart } from '../../assistant/providers/answer-start.ts';
import {
  describeProviderError,
  safeProviderErrorMessage,
} from '../../assistant/providers/provider-errors.ts';
import { assistantRequestSchema, MAX_BODY_BYTES } from '../../assistant/request-schema.ts';
import { messageText, retrievalQuery } from '../../assistant/retrieval-query.ts';
import { toRetrievedSources } from '../../assistant/retrieved-sources.ts';
import {
  assistantStreamHeaders,
  type CitableSource,
  type SearchResultItem,
  writeAnswerStream,
} from '../../assistant/stream-protocol.ts';
import {
  appendThreadMessage,
  createThread,
  findThreadForFollowUp,
  type StoredSource,
} from '../../assistant/threads.ts';
import { type AssistantGate, createAssistantGate } from '../../limits/assistant-gate.ts';
import { MemoryRateLimitStore } from '../../limits/memory-rate-limit-store.ts';
import type { SiteSearch } from '../../search/site-search.ts';
import type { Storage } from '../../storage/database.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';
import { zodDetails } from '../validation.ts';

export interface AssistantRouteDeps {
  storage: Storage;
  search: SiteSearch;
  /** Defaults to the built-in answerer. */
  modelProvider?: ModelProvider;
  /** Origin, rate-limit and credit checks (src/limits); an in-process one when not given. */
  gate?: AssistantGate;
}

/** Both prefixes serve the same handler: `/discovery` is the hosted service's documented address. */
export const ASSISTANT_PREFIXES = ['', '/discovery'] as const;

export function assistantMessageRoute(deps: AssistantRouteDeps): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      // The rest of the upload is not read, so the connection cannot be reused for another request.
      throw new DocentError('payload_too_large', `Request body exceeds ${MAX_BODY_BYTES} bytes`, {
        headers: { Connection: 'close' },
      });
    },
  });
  const gate =
    deps.gate ??
    createAssistantGate({ storage: deps.storage, store: new MemoryRateLimitStore(), trustProxy: false });
  for (const prefix of ASSISTANT_PREFIXES) {
    route.options(`${prefix}/v1/assistant/:domain/message`, gate.preflight);
    route.post(`${prefix}/v1/assistant/:domain/message`, gate.wrap, limit, async (c) => {
      const domain = c.req.param('domain');
      const caller = await authenticateAssistant(deps.storage, c.req.header('Authorization'), domain);
      // 403 for a disallowed Origin, then 429: before the body is read, so a limited request costs nothing.
      await gate.admit(c, caller);

      const contentType = c.req.header('Content-Type') ?? '';
      if (!/^application\/json\b/i.test(contentType)) {
        throw new DocentError('unsupported_media_type', 'Send the request body as application/json');
      }
      const raw: unknown = await c.req.json();
      const parsed = assistantRequestSchema.safeParse(raw);
      if (!parsed.success) {
        throw new DocentError('invalid_request', 'Invalid request body', {
          details: zodDetails(parsed.error),
        });
      }
      const body = parsed.data;
      // 402 when out of credits; from here an error response refunds the charge (gate.wrap).
      await gate.charge(c, caller);
      const requestId = c.get('requestId');
      const logger = c.get('logger');
      const started = performance.now();

      let threadId: string;
      let threadKey: string | undefined;
      if (body.threadId) {
        const thread = await findThreadForFollowUp(deps.storage, {
          threadId: body.threadId,
          siteId: caller.site.id,
          fp: body.fp,
          threadKey: body.threadKey,
        });
        if (!thread) {
          throw new DocentError(
            'thread_not_found',
            'No thread with this threadId for this site and fingerprint (or the threadKey does not match)',
          );
        }
        threadId = thread.id;
      } else {
        const created = await createThread(deps.storage, {
          organizationId: caller.site.organization_id,
          siteId: caller.site.id,
          fp: body.fp,
        });
        threadId = created.thread.id;
        threadKey = created.key;
      }

      const lastUser = body.messages.at(-1);
      await appendThreadMessage(deps.storage, threadId, {
        role: 'user',
        content: lastUser ? messageText(lastUser) : '',
        status: 'complete',
        requestId,
      });

      const query = retrievalQuery(body.messages, body.context);
      const results = await deps.search.search(caller.site.id, query, {
        limit: body.retrievalPageSize,
        version: body.filter?.version ?? undefined,
        language: body.filter?.language ?? undefined,
        currentPath: body.currentPath,
      });
      const retrievalMs = performance.now() - started;
      const sources = toRetrievedSources(results);
      const citable: CitableSource[] = results.map((r, i) => ({
        id: String(i + 1),
        url: r.url,
        title: [r.title, ...r.breadcrumbs.slice(1)].join(' › '),
      }));
      const seenUrls = new Set<string>();
      const toolResults: SearchResultItem[] = [];
      for (const r of results) {
        if (seenUrls.has(r.url)) continue;
        seenUrls.add(r.url);
        toolResults.push({ path: r.pagePath, url: r.url, title: r.title });
      }

      const model = (deps.modelProvider ?? builtinModelProvider)({
        site: caller.site,
        sources,
        context: (body.context ?? []).map((item) => ({ type: item.type, value: item.value })),
        currentPath: body.currentPath ?? null,
      });
      const abortSignal = c.req.raw.signal;
      // A raw Response bypasses headers set on the context, so the request id is repeated here.
      const headers: Record<string, string> = {
        ...assistantStreamHeaders(domain, prefix),
        'X-Request-Id': requestId,
        'X-Thread-Id': threadId,
      };
      if (threadKey) headers['X-Thread-Key'] = threadKey;

      // The model's own stream, read directly: the answer is one step with no tools, so `streamText`
      // would only add prompt re-validation, telemetry spans and stream layers to every token (measured).
      // Retries live in the providers' fetch, before any text exists (providers/resilient-fetch.ts).
      const modelStream = async function* () {
        const { stream } = await model.doStream({
          inputFormat: 'messages',
          mode: { type: 'regular' },
          prompt: modelPrompt(body.messages),
          abortSignal,
        });
        yield* stream;
      };
      let firstTokenMs: number | undefined;
      const timed = (async function* () {
        for await (const part of modelStream()) {
          if (firstTokenMs === undefined && part.type === 'text-delta')
            firstTokenMs = performance.now() - started;
          yield part;
        }
      })();
      // The response is committed once the answer has started, so a model that fails before writing any
      // text gets a clean error response (and the credit back) rather than a 200 stream ending in `3:`.
      const start = await awaitAnswerStart(timed, abortSignal);
      if (start.kind !== 'started') {
        const error = start.kind === 'failed' ? start.error : undefined;
        if (error !== undefined)
          logger.error(
            { err: describeProviderError(error), requestId },
            'answer model failed before answering',
          );
        await appendThreadMessage(deps.storage, threadId, {
          role: 'assistant',
          content: '',
          status: start.kind === 'failed' ? 'error' : 'aborted',
          finishReason: start.kind === 'failed' ? 'error' : 'unknown',
          timings: { retrievalMs: round(retrievalMs), totalMs: round(performance.now() - started) },
          requestId,
        }).catch((e: unknown) => logger.error({ err: e, requestId }, 'storing the answer failed'));
        const threadHeaders: Record<string, string> = { 'X-Thread-Id': threadId };
        if (threadKey) threadHeaders['X-Thread-Key'] = threadKey;
        throw new DocentError('unavailable', safeProviderErrorMessage(error, requestId), {
          headers: threadHeaders,
        });
      }

      return createDataStreamResponse({
        status: 200,
        headers,
        execute: async (writer) => {
          const outcome = await writeAnswerStream(writer, start.parts, {
            messageId: `msg_${crypto.randomUUID()}`,
            toolCallId: `call_${crypto.randomUUID()}`,
            query,
            results: toolResults,
            sources: citable,
            threadId,
            abortSignal,
            errorMessage: (error) => safeProviderErrorMessage(error, requestId),
          });
          // Described, not serialised whole: a provider error carries the full prompt in its request body.
          if (outcome.error !== undefined)
            logger.error({ err: describeProviderError(outcome.error), requestId }, 'answer stream failed');
          await gate.settle(c, outcome);
          const cited = new Set(outcome.citedIds);
          const stored: StoredSource[] = results
            .map((r, i) => ({ id: String(i + 1), url: r.url, title: r.title, path: r.pagePath }))
            .filter((s) => cited.has(s.id));
          await appendThreadMessage(deps.storage, threadId, {
            role: 'assistant',
            content: outcome.text,
            status: outcome.aborted ? 'aborted' : outcome.error !== undefined ? 'error' : 'complete',
            sources: stored,
            finishReason: outcome.finishReason,
            usage: outcome.usage,
            timings: {
              retrievalMs: round(retrievalMs),
              ...(firstTokenMs === undefined ? {} : { firstTokenMs: round(firstTokenMs) }),
              totalMs: round(performance.now() - started),
            },
            requestId,
          }).catch((error: unknown) => logger.error({ err: error, requestId }, 'storing the answer failed'));
        },
        onError: () => 'An error occurred.',
      });
    });
  }
  return route;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * The conversation as the model sees it. Client-sent `system` and `data` messages are dropped: a
 * public key sits in browsers, so the instructions a model follows must come from the server only.
 */
function modelPrompt(messages: Parameters<typeof messageText>[0][]): LanguageModelV1Prompt {
  const out: LanguageModelV1Prompt = [];
  for (const message of messages) {
    const text = messageText(message);
    if (message.role === 'user') out.push({ role: 'user', content: [{ type: 'text', text }] });
    else if (message.role === 'assistant' && text)
      out.push({ role: 'assistant', content: [{ type: 'text', text }] });
  }
  return out;
}
