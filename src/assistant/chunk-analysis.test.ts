import { describe, expect, it } from 'vitest';
import { splitUnits } from './answer-text.ts';
import { analyzeChunk, CHUNK_CACHE_ENTRIES, cachedChunkCount, hashString } from './chunk-analysis.ts';

const fresh = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

const text = [
  'The Docent CLI runs on macOS, Linux and Windows.',
  'To install the CLI on macOS, run the installer with Homebrew:',
  '',
  '```bash',
  'brew install docent',
  '```',
  '',
  '- Install the CLI.',
  '- Run `docent init` in the docs folder.',
  '',
  'After the install finishes, check the version with `docent --version`.',
].join('\n');

describe('analyzeChunk', () => {
  it('gives the units a fresh split gives, for the same text read again', () => {
    const first = analyzeChunk(fresh(text));
    expect(first.units).toEqual(splitUnits(text));
    expect(analyzeChunk(fresh(text))).toBe(first);
  });

  it('finds, for each term, exactly the units that have it', () => {
    const chunk = analyzeChunk(text);
    const allTerms = new Set(chunk.units.flatMap((u) => u.terms));
    expect(new Set(chunk.vocabulary)).toEqual(allTerms);
    for (const term of allTerms) {
      const expected = chunk.units.flatMap((u, i) => (u.termSet.has(term) ? [i] : []));
      expect(chunk.unitsWith(fresh(term), hashString(term))).toEqual(expected);
      expect(chunk.vocabularyByLength[term.length]).toContain(term);
    }
    expect(chunk.unitsWith('kubernet', hashString('kubernet'))).toBeUndefined();
    expect([...chunk.keyHashes]).toEqual(chunk.units.map((u) => hashString(u.key)));
    expect([...chunk.termCounts]).toEqual(chunk.units.map((u) => (u.kind === 'code' ? -1 : u.terms.length)));
    expect(chunk.termCounts).toContain(-1);
  });

  it(`keeps at most CHUNK_CACHE_ENTRIES (${CHUNK_CACHE_ENTRIES}) chunks`, () => {
    for (let i = 0; i <= CHUNK_CACHE_ENTRIES + 10; i++) analyzeChunk(`Chunk number ${i} says little.`);
    expect(cachedChunkCount()).toBeGreaterThan(0);
    expect(cachedChunkCount()).toBeLessThanOrEqual(CHUNK_CACHE_ENTRIES);
  });
});
