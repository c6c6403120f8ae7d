import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Command } from 'commander';
import { destination, pino } from 'pino';
import { askDocs } from '../../agents/ask-docs.ts';
import { createDocsMcpServer } from '../../agents/docs-mcp-server.ts';
import { guardClientMessages } from '../../agents/mcp-client-messages.ts';
import { createAnswerService } from '../../assistant/answer-question.ts';
import { createModelProvider } from '../../assistant/providers/create-model-provider.ts';
import { DEFAULT_RETRIEVAL_PAGE_SIZE, retrievalOf } from '../../assistant/request-schema.ts';
import { STDIO_MCP_FP } from '../../assistant/threads.ts';
import { loadConfig } from '../../config.ts';
import { createCreditGuard } from '../../limits/credit-guard.ts';
import { startInstanceLifecycle } from '../../recovery/instance-lifecycle.ts';
import { embeddingModelsFor } from '../../search/embeddings/embedding-model.ts';
import { SiteSearch } from '../../search/site-search.ts';
import { newId } from '../../storage/ids.ts';
import { FALLBACK_PLAN, getOrganizationPlan } from '../../tenancy/plans.ts';
import { getSiteByDomain } from '../../tenancy/sites.ts';
import { DOCENT_VERSION } from '../../version.ts';
import { CliError, type GlobalOptions, openCliStorage } from '../context.ts';

/**
 * `docent mcp --site <domain>`: the site's MCP server on stdin/stdout, for an agent on this machine
 * (its client starts this command). Reads the database directly: no key, no rate limit; `ask_docs`
 * is still charged to the site's organization. Logs go to stderr, as stdout is the protocol.
 */
export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description("serve a site's MCP server over stdio (search_docs, get_page, ask_docs)")
    .requiredOption('--site <domain>', 'domain identifier of the site')
    .action(async (options: { site: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const config = loadConfig();
      const logger = pino({ level: config.logLevel }, destination(2));
      const storage = await openCliStorage(globals, false);
      const site = await getSiteByDomain(storage, options.site);
      if (!site) {
        await storage.close();
        throw new CliError(`No site "${options.site}"`);
      }
      const search = new SiteSearch(storage, {
        embeddings: embeddingModelsFor(config.embeddings)?.query ?? null,
        logger,
        cacheBytes: config.indexCacheBytes,
      });
      const docentUrl = config.publicUrl ?? `http://localhost:${config.port}`;
      // ask_docs charges credits like the server does, so this process registers as an instance too.
      const lifecycle = await startInstanceLifecycle(storage, logger);
      const answers = createAnswerService({
        instanceId: lifecycle.instance.id,
        storage,
        search,
        credits: createCreditGuard(storage, logger),
        modelProvider: createModelProvider(config.model, { logger }),
        searchSteps: config.model.searchSteps,
        publicUrl: docentUrl,
      });
      // The client closing stdin ends the answers still running, as a reader going away does; each is
      // stored (and refunded) before the database closes.
      const running = new RunningCalls();
      const clientGone = new AbortController();
      const gone = {
        get aborted() {
          return clientGone.signal.aborted;
        },
        signal: clientGone.signal,
      };
      const server = createDocsMcpServer({
        site,
        storage,
        search,
        docentUrl,
        version: DOCENT_VERSION,
        // Read once: a process that lives across re-ingestions describes the labels it started with
        // (searches still check a version against the current ones).
        labels: await search.labels(site.id),
        ask: (input) =>
          running.track(async () =>
            askDocs(answers, {
              site,
              plan: (await getOrganizationPlan(storage, site.organization_id)) ?? FALLBACK_PLAN,
              requestId: newId('req'),
              fp: STDIO_MCP_FP,
              threadId: input.threadId,
              threadKey: input.threadKey,
              question: input.question,
              retrieval: retrievalOf({ retrievalPageSize: DEFAULT_RETRIEVAL_PAGE_SIZE }),
              origin: docentUrl,
              gone,
              logger,
            }),
          ),
      });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
      });
      await server.connect(transport);
      guardClientMessages(transport);
      logger.info({ site: site.domain }, 'MCP server on stdio');
      // The client ends the session by closing stdin.
      process.stdin.once('end', () => {
        clientGone.abort();
        void server.close();
      });
      await closed;
      await running.settled();
      await lifecycle.stop();
      await storage.close();
    });
}

/** Calls in progress, so that the process waits for them (never for their failures) before it ends. */
class RunningCalls {
  readonly #calls = new Set<Promise<unknown>>();

  track<T>(call: () => Promise<T>): Promise<T> {
    const promise = call();
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    this.#calls.add(settled);
    void settled.then(() => this.#calls.delete(settled));
    return promise;
  }

  async settled(): Promise<void> {
    while (this.#calls.size > 0) await Promise.all(this.#calls);
  }
}
