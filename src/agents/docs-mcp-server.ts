/**
 * The MCP server of one docs site: `search_docs`, `get_page` and `ask_docs`, read-only tools over the
 * same index and answer service as the HTTP API. Built per connection (stateless HTTP: per request; the
 * CLI's stdio server: once) by whoever has authenticated the caller; free of any transport.
 */

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_ID_CHARS } from '../assistant/request-schema.ts';
import { DomainError } from '../errors/domain-error.ts';
import { inertMarkdown, inertState } from '../pages/inert-markdown.ts';
import { listLabels, type SiteLabels } from '../search/search-index.ts';
import type { SiteSearch } from '../search/site-search.ts';
import type { Storage } from '../storage/database.ts';
import type { Site } from '../tenancy/sites.ts';
import { answerAsText, type CollectedAnswer } from './ask-docs.ts';
import { MAX_PAGE_PATH_CHARS, readPageMarkdown } from './read-page.ts';
import {
  DEFAULT_SEARCH_PAGE_SIZE,
  MAX_SEARCH_PAGE_SIZE,
  MAX_SEARCH_QUERY_CHARS,
  searchDocs,
} from './search-docs.ts';
import { docsTitle } from './server-card.ts';

/** Longest question `ask_docs` takes (characters), as a message on the assistant routes. */
export const MAX_ASK_QUESTION_CHARS = 8_000;
/**
 * Most characters of a page `get_page` returns at once (about 12,000 tokens): agents' clients cap a
 * tool's output (Claude Code at 25,000 tokens by default), so a longer page comes in parts, by `offset`.
 */
export const MAX_PAGE_PART_CHARS = 50_000;
/**
 * Most characters of sections `search_docs` returns at once, for the same clients: 50 results of up to
 * 20,000 characters each (MAX_CHUNK_CHARS; reference tables reach 16,000) would be far over their cap,
 * so results past it are left out, and the text says how many.
 */
export const MAX_SEARCH_TEXT_CHARS = 50_000;

export interface AskDocsInput {
  question: string;
  threadId?: string | undefined;
  threadKey?: string | undefined;
}

export interface DocsMcpDeps {
  site: Site;
  storage: Storage;
  search: SiteSearch;
  /** Where links to Docent's page view point (`DOCENT_PUBLIC_URL`, else the address the caller used). */
  docentUrl: string;
  /** Answers a question, charged to the site's organization like an assistant request. */
  ask(input: AskDocsInput): Promise<CollectedAnswer>;
  version: string;
  /**
   * The versions and languages the site's pages carry (SiteSearch `labels`); null when they could not
   * be read (the tools are then described without them).
   */
  labels: SiteLabels | null;
}

/** A tool's arguments: unknown ones are refused, as the advertised schema says (`additionalProperties: false`). */
const toolInput = <T extends z.ZodRawShape>(shape: T) => z.object(shape).strict();

/**
 * Text that `ask_docs` stores (a question) or looks up (a thread): refused with a NUL character, as the
 * HTTP routes refuse one in a body (PostgreSQL cannot hold U+0000 in text; over stdio nothing else checks).
 */
const storedText = (schema: z.ZodString) =>
  schema.refine((text) => !text.includes('\u0000'), 'Text may not contain the NUL character (U+0000)');

/** The filters, described with the values this site's pages carry, so that an agent can pick one. */
const filterShape = (labels: SiteLabels | null) => ({
  version: z
    .string()
    .trim()
    .min(1)
    .max(MAX_ID_CHARS)
    .optional()
    .describe(
      labels === null
        ? 'Only this docs version (as the docs name it)'
        : labels.versions.length > 0
          ? `Only this docs version: one of ${listLabels(labels.versions)}`
          : 'Only this docs version (these docs have none: leave it out)',
    ),
  language: z
    .string()
    .trim()
    .min(1)
    .max(MAX_ID_CHARS)
    .optional()
    .describe(
      labels !== null && labels.languages.length > 0
        ? `Only this language (e.g. "en"); these docs label pages ${listLabels(labels.languages)}`
        : 'Only this language (e.g. "en")',
    ),
});

const searchOutput = {
  results: z.array(
    z.object({
      title: z.string().describe('Page › heading of the section'),
      url: z.string().describe('Absolute link to the section'),
      path: z.string().describe('Page path, for get_page'),
      content: z.string(),
      score: z.number().describe('Relevance relative to the best result (1)'),
      version: z
        .string()
        .optional()
        .describe('The docs version the section belongs to, when the site has versions'),
      language: z.string().optional().describe('Its language, when the site has several'),
    }),
  ),
};

const askOutput = {
  answer: z.string(),
  sources: z.array(z.object({ id: z.string(), title: z.string(), url: z.string() })),
  threadId: z.string(),
  threadKey: z.string().optional(),
};

export function createDocsMcpServer(deps: DocsMcpDeps): McpServer {
  const { site } = deps;
  const docs = docsTitle(site.name);
  const server = new McpServer(
    { name: `docent-${site.domain}`, title: docs, version: deps.version },
    {
      instructions: `Search and read the ${site.name} documentation. Use search_docs to find sections, get_page to read a whole page as Markdown, and ask_docs for a cited answer written from the docs.`,
    },
  );

  server.registerTool(
    'search_docs',
    {
      title: `Search the ${docs}`,
      description: `Searches the ${site.name} documentation and returns the best-matching sections with their text, page path and absolute URL. Use it before answering questions about ${site.name}; read a whole page with get_page.`,
      inputSchema: toolInput({
        query: z.string().trim().min(1).max(MAX_SEARCH_QUERY_CHARS).describe('What to look for, in words'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_SEARCH_PAGE_SIZE)
          .optional()
          .describe(`Sections to return (default ${DEFAULT_SEARCH_PAGE_SIZE})`),
        ...filterShape(deps.labels),
      }),
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit, version, language }) => {
      const hits = await searchDocs(
        deps.search,
        site,
        { query, pageSize: limit ?? DEFAULT_SEARCH_PAGE_SIZE, filter: { version, language } },
        deps.docentUrl,
      );
      const results = hits.map((hit) => ({
        title: hit.metadata.breadcrumbs.join(' › '),
        url: hit.metadata.url,
        path: hit.path,
        content: hit.content,
        score: hit.metadata.score,
        // Without them an agent cannot tell the 1.0 and 2.x "Installation" apart, or pick a filter.
        ...(hit.metadata.version === undefined ? {} : { version: hit.metadata.version }),
        ...(hit.metadata.language === undefined ? {} : { language: hit.metadata.language }),
      }));
      if (results.length === 0)
        return {
          content: [{ type: 'text', text: `No sections of the ${docs} match "${query}".` }],
          structuredContent: { results },
        };
      // Best first, while they fit: the first always does (one section is at most MAX_CHUNK_CHARS).
      const blocks: string[] = [];
      let length = 0;
      // Docs text as Markdown that stays text: no link, image or HTML from it (inert-markdown.ts); each
      // section made inert where the one before left off (a fence one leaves open goes on into the next).
      const inert = inertState();
      for (const [i, r] of results.entries()) {
        const labels = [r.version && `Version: ${r.version}`, r.language && `Language: ${r.language}`]
          .filter(Boolean)
          .map((line) => `\n${line}`)
          .join('');
        const block = inertMarkdown(
          `${i === 0 ? '' : '\n\n---\n\n'}[${i + 1}] ${r.title}\nURL: ${r.url}\nPath: ${r.path}${labels}\n\n${r.content}`,
          inert,
        );
        if (i > 0 && length + block.length > MAX_SEARCH_TEXT_CHARS) break;
        blocks.push(block);
        length += block.length;
      }
      const left = results.length - blocks.length;
      if (left > 0)
        blocks.push(
          `\n\n[${left} more ${left === 1 ? 'result was' : 'results were'} left out: search_docs returns at most ${MAX_SEARCH_TEXT_CHARS.toLocaleString('en-US')} characters of sections. Search again with a narrower query, or read a page whole with get_page.]`,
        );
      return {
        content: [{ type: 'text', text: blocks.join('') }],
        // The same results as the text: clients that hand a model the structured result have the same cap.
        structuredContent: { results: results.slice(0, results.length - left) },
      };
    },
  );

  server.registerTool(
    'get_page',
    {
      title: `Read a ${docs} page`,
      description: `Returns one documentation page as Markdown, by its path (as search_docs gives it, e.g. "guides/setup"). A page longer than ${MAX_PAGE_PART_CHARS.toLocaleString('en-US')} characters comes in parts: the text ends saying which offset to ask for next.`,
      inputSchema: toolInput({
        path: z.string().trim().min(1).max(MAX_PAGE_PATH_CHARS).describe('The page path'),
        offset: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Where to start, in characters (default 0), for the next part of a long page'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path, offset }): Promise<CallToolResult> => {
      const page = await readPageMarkdown(deps.storage, site.id, path);
      if (!page) return toolError(`No page "${path}" in the ${docs}; find pages with search_docs.`);
      const part = pagePart(page.content, offset ?? 0);
      if (part === null)
        return toolError(
          `Page "${page.path}" has ${page.content.length} characters; offset ${offset} is past its end.`,
        );
      return { content: [{ type: 'text', text: part }] };
    },
  );

  server.registerTool(
    'ask_docs',
    {
      title: `Ask the ${docs} assistant`,
      description: `Answers a question about ${site.name} from its documentation, citing sources as [n] with their URLs. Costs one assistant credit of the docs owner; to follow up, pass back threadId and threadKey.`,
      inputSchema: toolInput({
        question: storedText(z.string().trim().min(1).max(MAX_ASK_QUESTION_CHARS)),
        threadId: storedText(z.string().trim().min(1).max(MAX_ID_CHARS))
          .optional()
          .describe('Continue this conversation'),
        threadKey: storedText(z.string().trim().min(1).max(MAX_ID_CHARS))
          .optional()
          .describe('The key returned with threadId'),
      }),
      outputSchema: askOutput,
      // Read-only for the docs; it does write a thread and spend a credit, hence not idempotent.
      annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ question, threadId, threadKey }): Promise<CallToolResult> => {
      // A key alone would start a new thread, charged, while the agent thinks it follows up.
      if (threadKey !== undefined && threadId === undefined)
        return toolError('threadKey needs the threadId it was returned with');
      try {
        const answer = await deps.ask({ question, threadId, threadKey });
        return {
          content: [{ type: 'text', text: answerAsText(answer) }],
          structuredContent: {
            answer: answer.text,
            sources: answer.sources.map((s) => ({ id: s.id, title: s.title, url: s.url })),
            threadId: answer.threadId,
            ...(answer.threadKey === undefined ? {} : { threadKey: answer.threadKey }),
          },
          ...(answer.error === undefined ? {} : { isError: true }),
        };
      } catch (error) {
        // What the assistant routes answer with a 4xx/503 is a tool error here, told to the agent.
        if (error instanceof DomainError) return toolError(error.message);
        throw error;
      }
    },
  );

  // The SDK offers list-change notifications once tools are registered; these tools never change while
  // a client is connected (and over stateless HTTP there is no stream to send one on).
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

/**
 * The part of a page's Markdown from `offset` on, at most `MAX_PAGE_PART_CHARS`, cut after a line when
 * one ends in its last quarter, with a closing note naming the next offset; null past the end.
 */
export function pagePart(content: string, offset: number): string | null {
  if (offset === 0 && content.length <= MAX_PAGE_PART_CHARS) return content;
  if (offset >= content.length) return null;
  let end = Math.min(content.length, offset + MAX_PAGE_PART_CHARS);
  if (end < content.length) {
    const line = content.lastIndexOf('\n', end - 1);
    if (line >= offset + (MAX_PAGE_PART_CHARS * 3) / 4) end = line + 1;
    // Never between the two halves of a character outside the Basic Multilingual Plane.
    else if (/[\uD800-\uDBFF]/.test(content.charAt(end - 1))) end--;
  }
  const note =
    end < content.length
      ? `\n\n[Characters ${offset}–${end} of ${content.length}. Call get_page again with offset ${end} for the rest.]`
      : `\n\n[Characters ${offset}–${end} of ${content.length}: the end of the page.]`;
  return content.slice(offset, end) + note;
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
