import { describe, expect, it } from 'vitest';
import { analyzeChunk } from '../search/analyze.ts';
import { buildSearchIndex } from '../search/search-index.ts';
import type { IndexableChunk } from '../search/types.ts';
import { CONCEPT_DIMS_PER_TERM, type ConceptModel, conceptModelFromIndex } from './question-concepts.ts';
import { GroupIndex, questionTerms } from './question-grouping.ts';

/** A small site: each section uses its own words for one thing. */
const sections: [title: string, heading: string, text: string][] = [
  ['Keys', 'Rotating a key', 'Regenerate the assistant secret: rotate the key, then revoke the old secret.'],
  ['Operations', 'Health checks', 'The healthz endpoint answers liveness probes from Kubernetes.'],
  ['Widget', 'Theme', 'Change the widget colors and fonts with the theme attributes.'],
  ['Limits', 'Rate limits', 'Too many requests get 429 with a Retry-After header.'],
  ['Deployment', 'Proxies', 'Behind nginx, set TRUST_PROXY so X-Forwarded-For gives the client address.'],
];

const chunks: IndexableChunk[] = sections.map(([pageTitle, heading, text], id) => ({
  id,
  pagePath: pageTitle.toLowerCase(),
  pageTitle,
  headings: [heading],
  text,
  versions: [],
  languages: [],
  analyzed: analyzeChunk({ pageTitle, headings: [heading], text, language: null }),
}));

const model = (): Promise<ConceptModel> => conceptModelFromIndex(buildSearchIndex(chunks));

/** Groups `questions` in order; each question's group as the index of its group's first question. */
function partition(questions: readonly string[], index: GroupIndex): number[] {
  let next = 0;
  const first = new Map<string, number>();
  return questions.map((question, i) => {
    const groupId = index.assign(questionTerms(question), () => `g${next++}`)?.groupId;
    if (groupId === undefined) return -1;
    if (!first.has(groupId)) first.set(groupId, i);
    return first.get(groupId) ?? -1;
  });
}

describe('concept model', () => {
  it("keeps each docs word's strongest sections, unit length, and its rarity in the docs", async () => {
    const concepts = await model();
    const healthz = concepts.vectorOf('healthz');
    expect(healthz?.dims.length).toBe(1);
    expect(healthz?.weights[0]).toBeCloseTo(1);
    expect(concepts.vectorOf('webhook')).toBeUndefined();
    // A word of no section is rarer than any word of one.
    expect(concepts.idfOf('webhook')).toBeGreaterThanOrEqual(concepts.idfOf('healthz'));
    expect(concepts.idfOf('healthz')).toBeGreaterThan(0);
    const small = await conceptModelFromIndex(buildSearchIndex(chunks), { dimsPerTerm: 1 });
    expect(small.vectorOf('secret')?.dims.length).toBe(1);
    expect(CONCEPT_DIMS_PER_TERM).toBeGreaterThan(1);
  });

  it('keeps only the words in most sections past its word limit', async () => {
    const limited = await conceptModelFromIndex(buildSearchIndex(chunks), { maxTerms: 1 });
    expect(limited.terms).toBe(1);
    expect(limited.bytes).toBeGreaterThan(0);
  });
});

describe('question grouping with the concept model', () => {
  const paraphrases = ['regenerate my secret', 'rotate the key'];
  const proxy = ['nginx client address', 'TRUST_PROXY x-forwarded-for'];

  it('puts paraphrases sharing no word in one group when the docs use their words together', async () => {
    // By words alone they share nothing.
    expect(partition([...paraphrases, ...proxy], new GroupIndex())).toEqual([0, 1, 2, 3]);
    const index = new GroupIndex();
    index.setConcepts(await model());
    expect(partition([...paraphrases, ...proxy], index)).toEqual([0, 0, 2, 2]);
  });

  it('keeps questions about different sections apart', async () => {
    const index = new GroupIndex();
    index.setConcepts(await model());
    const groups = partition(['rotate the key', 'healthz probe', 'widget colors', '429 retry-after'], index);
    expect(new Set(groups).size).toBe(4);
  });

  it('finds a group loaded before the model came by its sections', async () => {
    const index = new GroupIndex();
    index.load('stored', { t: questionTerms('regenerate my secret'), c: [1, 1], n: 1 });
    index.setConcepts(await model());
    expect(index.assign(questionTerms('rotate the key'), () => 'new')?.groupId).toBe('stored');
  });
});
