import crypto from 'node:crypto';
import { Hono } from 'hono';
import { authenticateAssistant } from '../../assistant/authenticate.ts';
import { builtinModelProvider, type ModelProvider } from '../../assistant/model-provider.ts';
import {
  describeProviderError,
  safeProviderErrorMessage,
} from '../../assistant/providers/provider-errors.ts';
import { assistantRequestSchema, MAX_BODY_BYTES } from '../../assistant/request-schema.ts';
import { messageText, retrievalQuery } from '../../assistant/retrieval-query.ts';
import { toRetrievedSources } from '../../assistant/retrieved-sources.ts';
import { initialSources, resultItems, toolResultItems } from '../../assistant/search-tool.ts';
import { startAnswer } from '../../assistant/start-answer.ts';
import {
  assistantStreamHeaders,
  coalescingWriter,
  writeAnswerStream,
} from '../../assistant/stream-protocol.ts';
import {
  type AppendMessage,
  appendMessageWithin,
  appendThreadMessage,
  createThreadWithin,
  findThreadForFollowUp,
  type StoredSource,
} from '../../assistant/threads.ts';
import { type AssistantGate, createAssistantGate } from '../../limits/assistant-gate.ts';
import { MemoryRateLimitStore } from '../../limits/memory-rate-limit-store.ts';
import type { SiteSearch } from '../../search/site-search.ts';
import type { Storage } from '../../storage/database.ts';
import { TenancyCache } from '../../tenancy/tenancy-cache.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';
import { type ClientGone, clientGone, requestHeader } from '../node-request.ts';
import { readJsonBody } from '../request-body.ts';
import { streamedResponse } from '../streamed-response.ts';
import { zodDetails } from '../validation.ts';

export interface AssistantRouteDeps {
  storage: Storage;
  search: SiteSearch;
  /** Defaults to the built-in answerer. */
  modelProvider?: ModelProvider;
  /** Searches a real model may run itself through the `search` tool per answer (default 0: no tool). */
  searchSteps?: number;
  /** Key, site and plan reads; an uncached one is made when not given. */
  tenancy?: TenancyCache;
  /** Origin, rate-limit and credit checks (src/limits); an in-process one when not given. */
  gate?: AssistantGate;
}

/** Both prefixes serve the same handler: `/discovery` is the hosted service's documented address. */
export const ASSISTANT_PREFIXES = ['', '/discovery'] as const;

export function assistantMessageRoute(deps: AssistantRouteDeps): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const tenancy = deps.tenancy ?? new TenancyCache(deps.storage, 0);
  const gate =
    deps.gate ??
    createAssistantGate({
      storage: deps.storage,
      tenancy,
      store: new MemoryRateLimitStore(),
      trustProxy: false,
    });
  for (const prefix of ASSISTANT_PREFIXES) {
    route.options(`${prefix}/v1/assistant/:domain/message`, gate.preflight);
    route.post(`${prefix}/v1/assistant/:domain/message`, gate.wrap, async (c) => {
      const domain = c.req.param('domain');
      // Listening from the start: a client that leaves during retrieval must still stop the answer.
      const gone = clientGone(c);
      const caller = await authenticateAssistant(tenancy, requestHeader(c, 'Authorization'), domain);
      // 403 for a disallowed Origin, then 429: before the body is read, so a limited request costs nothing.
      await gate.admit(c, caller);

      const contentType = requestHeader(c, 'Content-Type') ?? '';
      if (!/^application\/json\b/i.test(contentType)) {
        throw new DocentError('unsupported_media_type', 'Send the request body as application/json');
      }
      const raw = await readJsonBody(c, MAX_BODY_BYTES);
      const parsed = assistantRequestSchema.safeParse(raw);
      if (!parsed.success) {
        throw new DocentError('invalid_request', 'Invalid request body', {
          details: zodDetails(parsed.error),
        });
      }
      const body = parsed.data;
      const requestId = c.get('requestId');
      const logger = c.get('logger');
      const started = performance.now();

      // A follow-up's thread is checked before charging, so a wrong thread id costs nothing.
      let followUp: string | undefined;
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
        followUp = thread.id;
      }
      const lastUser = body.messages.at(-1);
      // 402 when out of credits. The charge, a new thread and the question commit together; once charged,
      // an error response refunds the charge (gate.wrap).
      const question: AppendMessage = {
        role: 'user',
        content: lastUser ? messageText(lastUser) : '',
        status: 'complete',
        requestId,
      };
      type Charged = { threadId: string; threadKey?: string };
      const charge = (): Promise<Charged> =>
        gate.charge(c, caller, async (unit): Promise<Charged> => {
          if (followUp !== undefined) {
            await appendMessageWithin(unit, followUp, question);
            return { threadId: followUp };
          }
          const created = await createThreadWithin(unit, {
            organizationId: caller.site.organization_id,
            siteId: caller.site.id,
            fp: body.fp,
          });
          // A new thread's `updated_at` is already now.
          await appendMessageWithin(unit, created.thread.id, question, { touch: false });
          return { threadId: created.thread.id, threadKey: created.key };
        });
      // Where the charge cannot be refused for credits (see the gate), the answer starts first and the
      // charge commits during the model's round trip instead of before it.
      const early = gate.mayAnswerBeforeCharged(c, caller);
      const chargedFirst = early ? undefined : await charge();

      // Retrieval, the model and the start of its answer. Stopped (`refused`) when an early charge fails.
      const refused = early ? new AbortController() : undefined;
      const prepare = async () => {
        const query = retrievalQuery(body.messages, body.context);
        const searchOptions = {
          limit: body.retrievalPageSize,
          version: body.filter?.version ?? undefined,
          language: body.filter?.language ?? undefined,
          currentPath: body.currentPath,
        };
        const results = await deps.search.search(caller.site.id, query, searchOptions, caller.site);
        const retrievalMs = performance.now() - started;
        // Every source the answer may cite; a model's own searches (the `search` tool) add to it.
        const known = initialSources(results);
        const model = (deps.modelProvider ?? builtinModelProvider)({
          site: caller.site,
          sources: toRetrievedSources(results),
          context: (body.context ?? []).map((item) => ({ type: item.type, value: item.value })),
          currentPath: body.currentPath ?? null,
        });
        // The response is committed once the answer has started, so a model that fails before writing
        // any text gets a clean error response (and the credit back) rather than a 200 stream ending in `3:`.
        const starting = startAnswer({
          model,
          messages: body.messages,
          gone: refused ? goneOrRefused(gone, refused) : gone,
          searchSteps: deps.searchSteps ?? 0,
          sources: known,
          search: (q) => deps.search.search(caller.site.id, q, searchOptions, caller.site),
        });
        const toolResults = resultItems(known.stored);
        // Started once the model request is on its way, and last, so that nothing here can fail after it:
        // on SQLite a commit blocks the event loop while it runs, and the request is written later in this
        // turn of the loop, before the commit's turn comes.
        const charging = chargedFirst !== undefined ? Promise.resolve(chargedFirst) : charge();
        charging.catch(() => {});
        return { query, retrievalMs, known, toolResults, starting, charging };
      };
      let prepared: Awaited<ReturnType<typeof prepare>> | undefined;
      let charged: Charged;
      try {
        prepared = await prepare();
        charged = await prepared.charging;
      } catch (error) {
        // An early charge settles before the error response, so that `wrap` refunds it if it committed;
        // refused (or its write failed), it leaves nothing stored, and a started answer is stopped.
        refused?.abort();
        await prepared?.charging.catch(() => {});
        const abandoned = await prepared?.starting;
        if (abandoned?.kind === 'started') await abandoned.parts[Symbol.asyncIterator]().return?.(undefined);
        throw error;
      }
      const { query, retrievalMs, known, toolResults, starting } = prepared;
      const { threadId, threadKey } = charged;
      // A raw Response bypasses headers set on the context, so the request id is repeated here.
      const headers: Record<string, string> = {
        ...assistantStreamHeaders(domain, prefix),
        'X-Request-Id': requestId,
        'X-Thread-Id': threadId,
      };
      if (threadKey) headers['X-Thread-Key'] = threadKey;
      const start = await starting;
      const firstTokenMs = start.kind === 'started' && start.text ? performance.now() - started : undefined;
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

      // The gate's CORS and rate-limit headers go out with the stream's: it is written before `wrap` runs.
      Object.assign(headers, gate.streamHeaders(c));
      return streamedResponse(
        c,
        headers,
        async (sink) => {
          const out = coalescingWriter(sink);
          const outcome = await writeAnswerStream(out, start.parts, {
            messageId: `msg_${crypto.randomUUID()}`,
            toolCallId: `call_${crypto.randomUUID()}`,
            query,
            results: toolResults,
            sources: known.citable,
            searchResults: toolResultItems(known),
            threadId,
            abortSignal: gone,
            errorMessage: (error) => safeProviderErrorMessage(error, requestId),
          });
          out.flush();
          // Described, not serialised whole: a provider error carries the full prompt in its request body.
          if (outcome.error !== undefined)
            logger.error({ err: describeProviderError(outcome.error), requestId }, 'answer stream failed');
          const cited = new Set(outcome.citedIds);
          const stored: StoredSource[] = known.stored.filter((s) => cited.has(s.id));
          const answer: AppendMessage = {
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
          };
          // The answer and any refund commit together; failures are logged there, not thrown into the stream.
          await gate.settle(c, outcome, async (unit) => {
            // `updated_at` is the last question's time; the answer follows it within seconds.
            await appendMessageWithin(unit, threadId, answer, { touch: false });
          });
        },
        (error) => logger.error({ err: error, requestId }, 'answer stream failed unexpectedly'),
      );
    });
  }
  return route;
}

/**
 * What an answer that starts before its charge has committed listens to: the client leaving, or the
 * charge being refused (`refused` aborted).
 */
function goneOrRefused(gone: ClientGone, refused: AbortController): ClientGone {
  let linked = false;
  return {
    get aborted() {
      return gone.aborted || refused.signal.aborted;
    },
    get signal() {
      if (!linked) {
        linked = true;
        const client = gone.signal;
        if (client.aborted) refused.abort();
        else client.addEventListener('abort', () => refused.abort(), { once: true });
      }
      return refused.signal;
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
