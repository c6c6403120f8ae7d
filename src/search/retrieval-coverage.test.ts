import { describe, expect, it } from 'vitest';
import { analyzeChunk } from './analyze.ts';
import { buildSearchIndex, searchIndex } from './search-index.ts';
import type { IndexableChunk } from './types.ts';

const chunk = (id: number, pageTitle: string, text: string): IndexableChunk => ({
  id,
  pagePath: `p${id}`,
  pageTitle,
  headings: [],
  text,
  versions: [],
  languages: [],
  analyzed: analyzeChunk({ pageTitle, headings: [], text, language: null }),
});

const index = buildSearchIndex([
  chunk(
    0,
    'API keys',
    'Rotate an API key with the keys rotate command. The old key stops working after an hour.',
  ),
  chunk(1, 'Billing', 'Invoices are sent on the first day of each month to the billing address.'),
  chunk(2, 'Webhooks', 'Webhooks deliver events to your server; failed deliveries are retried.'),
  chunk(3, 'Install', 'Install the command line tool with npm and check its version.'),
]);

const best = (query: string) =>
  Math.max(0, ...searchIndex(index, query, { limit: 5 }).map((h) => h.coverage));

describe('retrieval coverage (the strength of what a search found)', () => {
  it('is high when the best chunk has the words of the question', () => {
    expect(best('How do I rotate an API key?')).toBeGreaterThan(0.9);
    expect(best('when are invoices sent')).toBeGreaterThan(0.9);
  });

  it('is low when the question is about something the docs never mention', () => {
    // "kubernetes" and "helm" are in no chunk: they weigh most, and no chunk has them.
    expect(best('deploy the key rotation with kubernetes helm charts')).toBeLessThan(0.45);
  });

  it('counts a typo of a word the docs use as that word', () => {
    expect(best('rotaet api key')).toBeGreaterThan(0.9);
  });

  it('is absolute, not relative to the best result like the score', () => {
    const hits = searchIndex(index, 'rotate webhooks kubernetes', { limit: 5 });
    expect(hits[0]?.coverage).toBeLessThan(1);
    for (const hit of hits) expect(hit.coverage).toBeGreaterThanOrEqual(0);
  });
});
