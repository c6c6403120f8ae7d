/**
 * Answering one question, end to end, whatever the wire: the follow-up check, the credit charge, the
 * retrieval, the model's start, the answer as events for a wire protocol (answer-stream.ts), storing
 * it, and the refund when no answer went out. The v1 and v2 routes parse a request into an `AskInput`,
 * call `ask`, and encode what it streams; they hold no policy of their own.
 */
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { type QuestionGrouper, questionGrouperFor } from '../analytics/question-grouper.ts';
import { DomainError } from '../errors/domain-error.ts';
import type { CreditGuard } from '../limits/credit-guard.ts';
import type { SearchResult, SiteSearch } from '../search/site-search.ts';
import type { SearchOptions } from '../search/types.ts';
import type { Storage } from '../storage/database.ts';
import { newId, nowIso } from '../storage/ids.ts';
import type { WriteUnit } from '../storage/write-unit.ts';
import type { Plan } from '../tenancy/plans.ts';
import type { Site } from '../tenancy/sites.ts';
import { citableView, SourceList, searchItems, storedView } from './answer-sources.ts';
import {
  type AnswerOutcome,
  type AnswerSink,
  SERVER_STOPPED_MESSAGE,
  streamAnswer,
} from './answer-stream.ts';
import { isAnswered } from './answered.ts';
import { clearInFlightWithin, markInFlightWithin } from './answers-in-flight.ts';
import { modelHistory } from './model-history.ts';
import type { ModelProvider } from './model-provider.ts';
import {
  describeProviderError,
  providerRetryAfterSeconds,
  safeProviderErrorMessage,
} from './providers/provider-errors.ts';
import { goneOr } from './reader-gone.ts';
import type { ContextItem } from './request-schema.ts';
import { previousQuestion, questionQuery } from './retrieval-query.ts';
import { retrievalStrength } from './retrieval-strength.ts';
import type { RunningAnswers } from './running-answers.ts';
import { toolResultItems } from './search-tool.ts';
import { smallTalk } from './small-talk.ts';
import { sourceLinker } from './source-links.ts';
import { startAnswer, type Turn } from './start-answer.ts';
import {
  type AnswerStored,
  type AppendMessage,
  appendQuestionWithin,
  createThreadWithin,
  listThreadMessages,
  requireThreadForFollowUp,
  type StoredQuestion,
  storeAnswerWithin,
  type ThreadMessage,
} from './threads.ts';

/** The reader's connection, as far as an answer cares: gone means stop. */
export interface ReaderGone {
  readonly aborted: boolean;
  /** Made on first use: only a model that does I/O needs a real signal. */
  readonly signal: AbortSignal;
  /**
   * Whether the answer's text reaches someone now: a v2 answer outlives its reader for a while, waiting
   * for a resume, and text nobody reads is no reason to keep the charge. Absent: until `aborted`.
   */
  heard?(): boolean;
}

export interface AnswerServiceDeps {
  storage: Storage;
  search: SiteSearch;
  credits: CreditGuard;
  modelProvider: ModelProvider;
  /** Searches a real model may run itself through the `search` tool per answer (0: no tool). */
  searchSteps: number;
  /** Docent's public address (`DOCENT_PUBLIC_URL`), for links to its page view; null: the request's. */
  publicUrl: string | null;
  /**
   * The server instance answering (`server_instances.id`): each charged answer is recorded in flight
   * under it until stored, so a crash leaves nothing charged unanswered. Null where no instance is
   * registered (in-process tests, benchmarks of the pipeline alone): nothing is recorded.
   */
  instanceId: string | null;
  /**
   * Aborted when the server's shutdown grace period is over: answers still running end as if their
   * reader had left (stored `aborted`, refunded when no text went out). Absent: answers never stop for
   * a shutdown.
   */
  stopping?: AbortSignal;
  /** Where each answer is tracked until it is stored, for a shutdown to wait on; absent: untracked. */
  running?: RunningAnswers;
  /** Told of every answer once it is stored (metrics); absent: nobody listens. */
  observe?: (event: AnswerEvent) => void;
  /** Puts each new question in its group for the owner's console; absent: the storage handle's own. */
  grouper?: QuestionGrouper;
}

/** One stored answer, as metrics see it. */
export interface AnswerEvent {
  status: 'complete' | 'aborted' | 'error';
  totalMs: number;
  /** Absent when no text went out. */
  firstTokenMs?: number;
  promptTokens: number;
  completionTokens: number;
  /** Credits charged for it, and whether they were given back. */
  credits: number;
  refunded: boolean;
}

export interface AskInput {
  site: Site;
  plan: Plan;
  requestId: string;
  fp: string;
  /** A follow-up: the thread to continue, and its key when the client kept it. */
  threadId?: string | null | undefined;
  threadKey?: string | null | undefined;
  /** The question, as the client sent it. */
  question: string;
  /**
   * v1: the conversation as the client sent it, the question last. Absent (v2): the stored thread is
   * the conversation and the client's history only supplies the question.
   */
  clientTurns?: Turn[];
  /** Answer the thread's last question again, replacing its stored answer (v2 `regenerate-message`). */
  regenerate?: boolean;
  retrieval: {
    pageSize: number;
    version?: string | null | undefined;
    language?: string | null | undefined;
    currentPath?: string | undefined;
    context: readonly ContextItem[];
  };
  /** This server's origin as the client reached it (`https://docs-ai.example.com`), for source links. */
  origin: string;
  gone: ReaderGone;
  logger: Logger;
}

/** An answer whose model has started: the thread is known, and `write` streams it to a wire's sink. */
export interface StartedAnswer {
  threadId: string;
  /** Only when the thread was created by this question. */
  threadKey?: string | undefined;
  messageId: string;
  /** Streams the answer into `sink`, then stores it (with a refund when no text went out). Never rejects. */
  write(sink: AnswerSink): Promise<AnswerOutcome>;
}

export interface AnswerService {
  /**
   * Charges the question, retrieves, and starts the model. Throws a `DomainError` when it cannot answer
   * (`thread_not_found`, `invalid_input` for a version the docs do not have, `credits_exhausted`,
   * `unavailable` when the model fails before any text); nothing stays charged then.
   */
  ask(input: AskInput): Promise<StartedAnswer>;
}

interface Charged {
  threadId: string;
  threadKey?: string | undefined;
  /** The question the stored thread holds (a regenerate answers it again). */
  question: string;
  /** Its place in the thread: the answer is stored right after it, whenever it ends. */
  questionSeq: number;
}

export function createAnswerService(deps: AnswerServiceDeps): AnswerService {
  const { storage, credits } = deps;
  const grouper = deps.grouper ?? questionGrouperFor(storage);
  const track = <T>(answer: Promise<T>): Promise<T> => deps.running?.track(answer) ?? answer;

  return {
    ask: async (input) => {
      const started = performance.now();
      const { site, requestId, logger } = input;
      const organizationId = site.organization_id;
      const regenerate = input.regenerate === true && Boolean(input.threadId);
      // Streamed to the client first thing and stored as the answer's id whatever its end (complete,
      // aborted, failed, or settled by crash recovery), so the client can refer to it (feedback).
      const messageId = newId('msg');

      // A follow-up's thread, and a version filter the docs have, are checked before charging, so a
      // wrong thread id or a misspelt version costs nothing and stores nothing. The version is searched
      // and stored as the docs spell it (`V2` as `v2`), so the console's version filter finds it.
      const version = await deps.search.resolveVersion(site.id, input.retrieval.version, site);
      // Stored as the page id it names, when it names one of the site's pages, so that the console counts
      // `/guides/setup/`, `https://docs.acme.dev/guides/setup` and `guides/setup` as one page.
      const { currentPath } = input.retrieval;
      const currentPage =
        currentPath === undefined
          ? null
          : ((await deps.search.pageOf(site.id, currentPath, site)) ?? currentPath);
      let followUp: string | undefined;
      let storedTurns: Turn[] | undefined;
      // A regenerate answers the thread's last question again, the one its history ends at.
      let regenerating: StoredQuestion | undefined;
      if (input.threadId) {
        const thread = await requireThreadForFollowUp(storage, {
          threadId: input.threadId,
          siteId: site.id,
          fp: input.fp,
          threadKey: input.threadKey,
        });
        followUp = thread.id;
        if (input.clientTurns === undefined) {
          const messages = await listThreadMessages(storage, thread.id);
          const last = messages.findLast((m) => m.role === 'user');
          // Unless the client's last question is another one: one the thread never stored (refused
          // for credits or a rate limit), which "try again" asks as a new question.
          if (regenerate && last !== undefined && last.content === input.question)
            regenerating = { id: last.id, seq: last.seq, content: last.content };
          storedTurns = turnsOf(messages, regenerating?.seq);
        }
      }

      const question: AppendMessage = {
        role: 'user',
        content: input.question,
        status: 'complete',
        requestId,
        currentPath: currentPage,
        filterVersion: version ?? null,
        filterLanguage: input.retrieval.language ?? null,
      };
      // The site's question groups are in memory after its first question (a read only then); a
      // failure to read them must not cost the reader an answer, only this question's group.
      await grouper
        .prepare(site.id)
        ?.catch((error: unknown) =>
          logger.warn({ err: error, requestId }, 'question groups could not be read'),
        );
      // A greeting or a thank-you asks nothing: it joins no group, so no topic, gap or top question.
      const grouped = async (unit: WriteUnit): Promise<AppendMessage> => ({
        ...question,
        questionGroupId:
          smallTalk(input.question) !== null
            ? null
            : await grouper.assignWithin(unit, {
                organizationId,
                siteId: site.id,
                question: input.question,
                language: input.retrieval.language,
              }),
      });
      const askWithin = async (unit: WriteUnit): Promise<Charged> => {
        if (followUp !== undefined) {
          if (regenerating !== undefined)
            return { threadId: followUp, question: regenerating.content, questionSeq: regenerating.seq };
          const stored = await appendQuestionWithin(unit, followUp, await grouped(unit));
          return { threadId: followUp, question: input.question, questionSeq: stored.seq };
        }
        const created = await createThreadWithin(unit, { organizationId, siteId: site.id, fp: input.fp });
        // A new thread's `updated_at` is already now.
        const stored = await appendQuestionWithin(unit, created.thread.id, await grouped(unit), {
          touch: false,
        });
        return {
          threadId: created.thread.id,
          threadKey: created.key,
          question: input.question,
          questionSeq: stored.seq,
        };
      };
      // 402 when out of credits. The charge, a new thread, the question and the in-flight record commit
      // together.
      const charge = (): Promise<Charged> =>
        credits.charge(
          { organizationId, siteId: site.id, requestId, plan: input.plan },
          async (unit: WriteUnit): Promise<Charged> => {
            const charged = await askWithin(unit);
            if (deps.instanceId !== null) {
              await markInFlightWithin(unit, {
                request_id: requestId,
                organization_id: organizationId,
                thread_id: charged.threadId,
                instance_id: deps.instanceId,
                created_at: nowIso(),
                message_id: messageId,
                question_seq: charged.questionSeq,
              });
            }
            return charged;
          },
        );
      // Where the charge cannot be refused for credits, the answer starts first and the charge commits
      // during the model's round trip instead of before it.
      const early = credits.mayStartBeforeCharged(organizationId, input.plan);
      const chargedFirst = early ? undefined : await charge();
      const chargedRequest = { organizationId, requestId };

      // The conversation, the question last, and the part of it the model sees (model-history.ts).
      const conversation: Turn[] = input.clientTurns ?? [
        ...(storedTurns ?? []),
        ...(regenerating !== undefined ? [] : [{ role: 'user' as const, text: input.question }]),
      ];
      const turns = modelHistory(conversation);
      const asked = conversation.at(-1)?.text ?? input.question;
      const previous = previousQuestion(
        conversation.slice(0, -1).flatMap((t) => (t.role === 'user' ? [t.text] : [])),
      );

      // Retrieval, the model and the start of its answer. Stopped (`refused`) when an early charge fails.
      const refused = early ? new AbortController() : undefined;
      const reader = deps.stopping === undefined ? input.gone : goneOr(input.gone, deps.stopping);
      const gone = refused ? goneOr(reader, refused.signal) : reader;
      const prepare = async () => {
        // A greeting or a thank-you asks nothing of the docs: nothing is searched, and no search shown.
        const query =
          smallTalk(asked) === null ? questionQuery(asked, previous, input.retrieval.context) : null;
        const searchOptions: SearchOptions = {
          limit: input.retrieval.pageSize,
          version,
          language: input.retrieval.language ?? undefined,
          // Without a language, the question's own, not that of the previous question or selected code
          // the query also holds.
          languageOf: asked,
          currentPath: input.retrieval.currentPath,
        };
        const search = (q: string): Promise<SearchResult[]> =>
          deps.search.search(site.id, q, searchOptions, site);
        const results = query === null ? [] : await search(query);
        const retrievalMs = performance.now() - started;
        const strength = retrievalStrength(results);
        // Every source the answer may cite; a model's own searches (the `search` tool) add to it.
        const sources = SourceList.of(results, sourceLinker(site, deps.publicUrl ?? input.origin));
        const model = deps.modelProvider({
          site,
          sources: sources.all,
          context: input.retrieval.context.map((item) => ({ type: item.type, value: item.value })),
          currentPath: input.retrieval.currentPath ?? null,
        });
        // The answer is committed to once it has started, so a model that fails before writing any text
        // gets a clean error response (and the credit back) rather than a stream ending in an error.
        const starting = startAnswer({ model, turns, gone, searchSteps: deps.searchSteps, sources, search });
        const results0 = searchItems(sources.all);
        // Started once the model request is on its way, and last, so that nothing here can fail after it:
        // on SQLite a commit blocks the event loop while it runs, and the request is written later in this
        // turn of the loop, before the commit's turn comes.
        const charging = chargedFirst !== undefined ? Promise.resolve(chargedFirst) : charge();
        charging.catch(() => {});
        return { query, retrievalMs, strength, sources, results0, starting, charging };
      };
      let prepared: Awaited<ReturnType<typeof prepare>> | undefined;
      let charged: Charged;
      try {
        prepared = await prepare();
        charged = await prepared.charging;
      } catch (error) {
        // An early charge that was refused (or whose write failed) leaves nothing stored; one that
        // committed, or a charge made first, is given back. A started answer is stopped.
        refused?.abort();
        const committed = await (prepared?.charging ?? Promise.resolve(chargedFirst)).then(
          (c) => c !== undefined,
          () => false,
        );
        if (committed) await credits.refund(chargedRequest, (unit) => clearInFlightWithin(unit, requestId));
        const abandoned = await prepared?.starting;
        if (abandoned?.kind === 'started') await abandoned.parts[Symbol.asyncIterator]().return?.(undefined);
        throw error;
      }
      const { query, retrievalMs, strength, sources, results0, starting } = prepared;
      const { threadId, threadKey, questionSeq } = charged;
      const start = await starting;
      const firstTokenMs = start.kind === 'started' && start.text ? performance.now() - started : undefined;
      if (start.kind !== 'started') {
        const error = start.kind === 'failed' ? start.error : undefined;
        if (error !== undefined)
          logger.error(
            { err: describeProviderError(error), requestId },
            'answer model failed before answering',
          );
        let stored: AnswerStored | undefined;
        await credits.settle(chargedRequest, true, async (unit) => {
          await clearInFlightWithin(unit, requestId);
          stored = await storeAnswerWithin(unit, threadId, questionSeq, {
            id: messageId,
            content: '',
            status: start.kind === 'failed' ? 'error' : 'aborted',
            finishReason: start.kind === 'failed' ? 'error' : 'unknown',
            timings: { retrievalMs: round(retrievalMs), totalMs: round(performance.now() - started) },
            requestId,
            answered: false,
            retrievalScore: strength,
          });
        });
        if (stored !== undefined) logNotStored(logger, requestId, stored);
        deps.observe?.({
          status: start.kind === 'failed' ? 'error' : 'aborted',
          totalMs: performance.now() - started,
          promptTokens: 0,
          completionTokens: 0,
          credits: input.plan.creditCost,
          refunded: true,
        });
        const retryAfterSeconds = providerRetryAfterSeconds(error);
        throw new DomainError('unavailable', safeProviderErrorMessage(error, requestId), {
          thread: { id: threadId, key: threadKey },
          ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
        });
      }

      return {
        threadId,
        threadKey,
        messageId,
        write: (sink) =>
          track(
            (async () => {
              const reaches = (): boolean => input.gone.heard?.() ?? !input.gone.aborted;
              // Whether any of the text reached a reader (a v2 answer runs on for a while after its
              // reader left, in case they resume it).
              let delivered = false;
              const heardSink: AnswerSink = {
                ...sink,
                text: (delta) => {
                  if (!delivered) delivered = reaches();
                  sink.text(delta);
                },
              };
              const outcome = await streamAnswer(start.parts, heardSink, {
                toolCallId: `call_${crypto.randomUUID()}`,
                query,
                results: results0,
                sources: () => sources.all.map(citableView),
                searchResults: toolResultItems(sources),
                abortSignal: gone,
                stoppedBecause: () =>
                  deps.stopping?.aborted === true && !input.gone.aborted ? SERVER_STOPPED_MESSAGE : null,
                errorMessage: (error) => safeProviderErrorMessage(error, requestId),
              });
              // Described, not serialised whole: a provider error carries the full prompt in its request body.
              if (outcome.error !== undefined)
                logger.error(
                  { err: describeProviderError(outcome.error), requestId },
                  'answer stream failed',
                );
              const status = outcome.aborted ? 'aborted' : outcome.error !== undefined ? 'error' : 'complete';
              const answer: AppendMessage = {
                id: messageId,
                role: 'assistant',
                content: outcome.text,
                status,
                sources: sources.pick(outcome.citedIds).map(storedView),
                finishReason: outcome.finishReason,
                usage: outcome.usage,
                timings: {
                  retrievalMs: round(retrievalMs),
                  ...(firstTokenMs === undefined ? {} : { firstTokenMs: round(firstTokenMs) }),
                  totalMs: round(performance.now() - started),
                },
                requestId,
                answered: isAnswered({
                  status,
                  text: outcome.text,
                  retrievalStrength: strength,
                  finishReason: outcome.finishReason,
                }),
                retrievalScore: strength,
              };
              // A resumer that came after the last word still got all of it.
              if (!delivered && outcome.text !== '') delivered = reaches();
              // Charged only for words someone read: not for an answer that failed or was stopped before
              // any, nor for one that ended, with words or none, while nobody read it.
              const refunding = !delivered;
              // The answer and any refund commit together; failures are logged there, not thrown.
              let stored: AnswerStored | undefined;
              await credits.settle(chargedRequest, refunding, async (unit) => {
                // `updated_at` is the last question's time; the answer follows it within seconds.
                await clearInFlightWithin(unit, requestId);
                stored = await storeAnswerWithin(unit, threadId, questionSeq, answer);
              });
              if (stored !== undefined) logNotStored(logger, requestId, stored);
              deps.observe?.({
                status: answer.status,
                totalMs: performance.now() - started,
                ...(firstTokenMs === undefined ? {} : { firstTokenMs }),
                promptTokens: outcome.usage.promptTokens,
                completionTokens: outcome.usage.completionTokens,
                credits: input.plan.creditCost,
                refunded: refunding,
              });
              return outcome;
            })(),
          ),
      };
    },
  };
}

/** An answer that was not stored says why in the log, where it is unexpected. */
function logNotStored(logger: Logger, requestId: string, stored: AnswerStored): void {
  if (stored === 'place-taken')
    logger.warn(
      { requestId },
      "the answer was not stored: its place after its question holds a question (written by an older Docent that appended at the thread's end?)",
    );
  else if (stored !== 'stored') logger.debug({ requestId, stored }, 'the answer was not stored');
}

/**
 * The stored conversation, up to and with the question a regenerate answers again (its answer, and
 * anything after it, left out), else the whole thread.
 */
function turnsOf(messages: readonly ThreadMessage[], upToSeq?: number): Turn[] {
  const kept = upToSeq === undefined ? messages : messages.filter((m) => m.seq <= upToSeq);
  return kept.filter((m) => m.content !== '').map((m) => ({ role: m.role, text: m.content }));
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
