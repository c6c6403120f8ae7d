/** Request bodies of the search, page and context APIs: every field bounded, unknown keys refused. */
import { z } from 'zod';
import { filterSchema } from '../assistant/request-schema.ts';
import { DEFAULT_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS } from './context-pack.ts';
import { MAX_PAGE_PATH_CHARS } from './read-page.ts';
import { DEFAULT_SEARCH_PAGE_SIZE, MAX_SEARCH_PAGE_SIZE, MAX_SEARCH_QUERY_CHARS } from './search-docs.ts';

/** Largest body the three routes read: the fields above, with room for whitespace. */
export const MAX_AGENT_BODY_BYTES = 16 * 1024;

const query = z.string().trim().min(1).max(MAX_SEARCH_QUERY_CHARS);

export const searchRequestSchema = z
  .object({
    query,
    pageSize: z.number().int().min(1).max(MAX_SEARCH_PAGE_SIZE).default(DEFAULT_SEARCH_PAGE_SIZE),
    scoreThreshold: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("Leave out results scoring below this; a score is relative to the query's best result (1)"),
    filter: filterSchema.strict().nullish(),
  })
  .strict();

export const pageRequestSchema = z
  .object({
    path: z
      .string()
      .trim()
      .min(1)
      .max(MAX_PAGE_PATH_CHARS)
      .describe('Page path as search returns it (`guides/setup`); a leading `/` or `.mdx` is ignored'),
  })
  .strict();

export const contextRequestSchema = z
  .object({
    query,
    tokenBudget: z.number().int().min(1).max(MAX_CONTEXT_TOKENS).default(DEFAULT_CONTEXT_TOKENS),
    filter: filterSchema.strict().nullish(),
  })
  .strict();

export const searchHitSchema = z.object({
  content: z.string(),
  path: z.string(),
  metadata: z.object({
    title: z.string(),
    breadcrumbs: z.array(z.string()),
    url: z.string(),
    version: z.string().optional(),
    language: z.string().optional(),
    score: z.number().describe("Relevance relative to the query's best result (1)"),
  }),
});

export const pageResponseSchema = z.object({ path: z.string(), content: z.string() });

export const contextResponseSchema = z.object({
  query: z.string(),
  tokenBudget: z.number().int(),
  tokens: z.number().int().describe('Estimated tokens of `text` (4 characters per token)'),
  sections: z.array(
    z.object({
      n: z.number().int(),
      title: z.string(),
      url: z.string(),
      path: z.string(),
      content: z.string(),
      tokens: z.number().int(),
    }),
  ),
  text: z.string().describe('The sections as one text: `[n] Title (url)` then the content of each'),
});
