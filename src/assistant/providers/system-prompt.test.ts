import { describe, expect, it } from 'vitest';
import type { RetrievedSource } from '../builtin-answerer.ts';
import { MIN_RETRIEVAL_STRENGTH } from '../retrieval-strength.ts';
import { buildSystemPrompt, WEAK_RETRIEVAL_NOTE } from './system-prompt.ts';

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
});
