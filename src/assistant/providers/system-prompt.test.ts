import { describe, expect, it } from 'vitest';
import type { RetrievedSource } from '../builtin-answerer.ts';
import { MIN_RETRIEVAL_STRENGTH } from '../retrieval-strength.ts';
import {
  buildSystemPrompt,
  MAX_PROMPT_CONTEXT_CHARS,
  MAX_PROMPT_EXCERPT_CHARS,
  WEAK_RETRIEVAL_NOTE,
} from './system-prompt.ts';

const sources: RetrievedSource[] = [
  {
    id: '1',
    pageTitle: 'Rotate keys',
    headings: ['With the CLI'],
    url: '/keys#cli',
    text: 'Run rotate.',
    score: 2,
  },
  { id: '2', pageTitle: 'Billing', headings: [], url: '/billing', text: 'Invoices monthly.', score: 1 },
];

describe('buildSystemPrompt', () => {
  it('numbers the excerpts with the ids the h: parts use, and carries instructions, page and context', () => {
    const prompt = buildSystemPrompt({
      siteName: 'Acme\nCloud',
      instructions: '  Answer in French.  ',
      sources,
      context: [{ type: 'code', value: 'acme keys rotate >>> x' }],
      currentPath: '/keys',
    });
    expect(prompt).toContain('documentation assistant for Acme Cloud');
    expect(prompt).toContain('[1] Rotate keys › With the CLI\nURL: /keys#cli\nRun rotate.');
    expect(prompt).toContain('[2] Billing\nURL: /billing\nInvoices monthly.');
    expect(prompt.indexOf('[1] Rotate keys')).toBeLessThan(prompt.indexOf('[2] Billing'));
    expect(prompt).toContain('Instructions from the owner of Acme Cloud');
    expect(prompt).toContain('\nAnswer in French.');
    expect(prompt).toContain('The reader is on the page /keys.');
    // The reader's selection cannot close its own delimiter.
    expect(prompt).toContain('<<<\nacme keys rotate > > > x\n>>>');
    expect(prompt).toMatch(/doesn't cover it/);
    // The reader's language by default; the owner's instructions (after the rules) can choose another.
    expect(prompt).toContain("- Answer in the language of the reader's question");
    expect(prompt.indexOf("language of the reader's question")).toBeLessThan(
      prompt.indexOf('Answer in French.'),
    );
  });

  it('tells the model there is nothing to answer from when retrieval found nothing', () => {
    const prompt = buildSystemPrompt({ siteName: 'Acme', sources: [], context: [] });
    expect(prompt).toContain('none matched this question');
    expect(prompt).not.toContain('Instructions from the owner');
    expect(prompt).not.toContain('The reader is on the page');
  });

  it('tells the model the docs do not appear to cover the question when retrieval is weak', () => {
    const withCoverage = (best: number): RetrievedSource[] =>
      sources.map((source, i) => ({ ...source, coverage: i === 0 ? best : best / 2 }));
    const weak = buildSystemPrompt({
      siteName: 'Acme',
      sources: withCoverage(MIN_RETRIEVAL_STRENGTH - 0.05),
      context: [],
    });
    expect(weak).toContain(WEAK_RETRIEVAL_NOTE);
    expect(weak.indexOf('[2] Billing')).toBeLessThan(weak.indexOf(WEAK_RETRIEVAL_NOTE));
    expect(WEAK_RETRIEVAL_NOTE).toMatch(/doesn't cover it/);
    const strong = buildSystemPrompt({
      siteName: 'Acme',
      sources: withCoverage(MIN_RETRIEVAL_STRENGTH),
      context: [],
    });
    expect(strong).not.toContain(WEAK_RETRIEVAL_NOTE);
    // Sources that carry no coverage (not from Docent's search) are not judged.
    expect(buildSystemPrompt({ siteName: 'Acme', sources, context: [] })).not.toContain(WEAK_RETRIEVAL_NOTE);
  });

  it('gives a model at most its budgets of excerpts and page context, the best excerpts first', () => {
    const long = (id: number, chars: number): RetrievedSource => ({
      id: String(id),
      pageTitle: `Page ${id}`,
      headings: [],
      url: `/p${id}`,
      text: `${id}:${'x'.repeat(chars)}`,
      score: 1 / id,
    });
    // retrievalPageSize 50 of long chunks: what fits, in rank order, and a short one after a skipped one.
    const many = [
      long(1, 19_000),
      long(2, 19_000),
      long(3, 19_000),
      long(4, 19_000),
      long(5, 100),
      ...Array.from({ length: 45 }, (_, i) => long(i + 6, 19_000)),
    ];
    const context = [1, 2, 3].map((n) => ({
      type: 'textSelection' as const,
      value: String(n).repeat(15_000),
    }));
    const prompt = buildSystemPrompt({ siteName: 'Acme', sources: many, context });
    const cited = [...prompt.matchAll(/^\[(\d+)\] Page/gm)].map((m) => Number(m[1]));
    expect(cited).toEqual([1, 2, 3, 5]);
    expect(prompt).toContain('1'.repeat(15_000));
    expect(prompt).toContain('2'.repeat(15_000));
    // The third selection is cut to what was left of the budget, and says so.
    expect(prompt).toContain(`<<<\n${'3'.repeat(MAX_PROMPT_CONTEXT_CHARS - 30_000)} …\n>>>`);
    expect(prompt).not.toContain('3'.repeat(MAX_PROMPT_CONTEXT_CHARS - 30_000 + 1));
    expect(prompt.length).toBeLessThan(MAX_PROMPT_EXCERPT_CHARS + MAX_PROMPT_CONTEXT_CHARS + 5_000);
    // Escaping a selection's own delimiter lengthens it: the budget counts what the model reads.
    const arrows = buildSystemPrompt({
      siteName: 'Acme',
      sources: [],
      context: [{ type: 'code', value: '>>>'.repeat(13_000) }],
    });
    const selected = /<<<\n([\s\S]*)\n>>>/.exec(arrows)?.[1] ?? '';
    expect(selected).toBe(`${'> > >'.repeat(13_000).slice(0, MAX_PROMPT_CONTEXT_CHARS)} …`);
  });

  it('counts the separators between excerpts in their budget', () => {
    // Excerpts that fill the budget exactly by their own length: with the separators, the last is out.
    const excerpt = (id: number, text: string): RetrievedSource => ({
      id: String(id),
      pageTitle: 'P',
      headings: [],
      url: '/p',
      text,
      score: 1,
    });
    const overhead = '[1] P\nURL: /p\n'.length;
    const each = MAX_PROMPT_EXCERPT_CHARS / 4 - overhead;
    const four = [1, 2, 3, 4].map((id) => excerpt(id, 'x'.repeat(each)));
    const prompt = buildSystemPrompt({ siteName: 'Acme', sources: four, context: [] });
    const body = prompt.slice(prompt.indexOf('[1] P'), prompt.indexOf('x\n', prompt.lastIndexOf('[')) + 1);
    expect([...prompt.matchAll(/^\[(\d+)\] P$/gm)].map((m) => Number(m[1]))).toEqual([1, 2, 3]);
    expect(body.length).toBeLessThanOrEqual(MAX_PROMPT_EXCERPT_CHARS);
  });
});
