import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeChunk, analyzeQuery, isAnalyzedChunk } from './analyze.ts';
import { stemmerNameFor } from './stemmer.ts';
import { tokenize } from './tokenize.ts';

describe('tokenize', () => {
  it('gives a plain ASCII word (its fast path) the terms the general path gives it', () => {
    // `word's` takes the general path (an apostrophe), which drops the possessive: same word, same terms.
    const plain = fc.stringMatching(/^[A-Z]?[a-z0-9]{0,14}$/).filter((w) => w.length > 0);
    const stemmers = [null, 'english', 'german', 'french', 'dutch', 'turkish', 'hungarian', 'russian'];
    fc.assert(
      fc.property(plain, fc.constantFrom(...stemmers), (word, stemmer) => {
        expect(tokenize(word, stemmer)).toEqual(tokenize(`${word}'s`, stemmer));
      }),
      { numRuns: 2_000 },
    );
    for (const word of ['The', 'Install', 'installing', 'v2', 'A', 'x', 'a'.repeat(41)])
      for (const stemmer of stemmers) expect(tokenize(word, stemmer)).toEqual(tokenize(`${word}'s`, stemmer));
  });

  it('segments Chinese and Japanese words with the dictionary segmenter, unstemmed', () => {
    const zh = tokenize('我们的代理使用工具', null);
    expect(zh).toContain('代理');
    expect(zh).toContain('工具');
    expect(zh).not.toContain('我们的代理使用工具');
    const ja = tokenize('東京に行きます', null);
    expect(ja).toContain('東京');
  });

  it('keeps Latin words inside CJK text and lowercases them', () => {
    expect(tokenize('调用API接口', null)).toContain('api');
  });

  it('adds Hangul bigrams so a noun matches with a different particle', () => {
    const withObject = tokenize('에이전트를', null);
    const withTopic = tokenize('에이전트는', null);
    expect(withObject).toContain('에이전트를');
    expect(withObject.filter((t) => withTopic.includes(t))).toEqual(
      expect.arrayContaining(['에이', '이전', '전트']),
    );
  });

  it('splits camelCase, snake_case, dotted and versioned identifiers and keeps them whole', () => {
    expect(tokenize('retrievalPageSize', 'english')).toEqual(['retriev', 'page', 'size', 'retrievalpages']);
    expect(tokenize('snake_case', 'english')).toEqual(['snake', 'case', 'snake_case']);
    expect(tokenize('v1.2', 'english')).toEqual(['v1', '2', 'v1.2']);
    expect(tokenize('HTTPServer', 'english')).toEqual(['http', 'server', 'httpserver']);
    expect(tokenize('config.yaml', 'english')).toEqual(['config', 'yaml', 'config.yaml']);
  });

  it('stems a whole identifier of letters as its one-word spelling is stemmed', () => {
    // Readers type "macos" and "websocket": the whole term must be the one their word stems to.
    for (const name of ['macOS', 'WebSockets', 'JetBrains', 'iOS', 'retrievalPageSize'])
      expect(tokenize(name, 'english')).toContain(tokenize(name.toLowerCase(), 'english')[0]);
    expect(tokenize('macOS', 'english')).toEqual(['mac', 'os', 'maco']);
  });

  it('drops stop words, possessives and single letters', () => {
    expect(tokenize("What is the Claude's API?", 'english')).toEqual(['claud', 'api']);
    expect(tokenize('a b c', 'english')).toEqual([]);
  });

  it('drops contractions typed without their apostrophe, as it drops the spelt-out ones', () => {
    expect(tokenize('whats the default port', 'english')).toEqual(
      tokenize("what's the default port", 'english'),
    );
    expect(tokenize('it doesnt start and i cant log in', 'english')).toEqual(['start', 'log']);
    expect(tokenize('whats', 'french')).toEqual([]);
  });

  it('stems by language', () => {
    expect(tokenize('running agents', 'english')).toEqual(['run', 'agent']);
    expect(tokenize('configuraciones agentes', 'spanish')).toEqual(['configur', 'agent']);
    expect(tokenize('Einstellungen', 'german')).toEqual(['einstell']);
    // French stems are accent-folded after stemming, so `paramètres` and `parametres` meet.
    expect(tokenize('paramètres', 'french')).toEqual(tokenize('parametres', 'french'));
  });

  it('folds ß to ss, so German docs of a site without a language label meet gross, grosse and Grösse', () => {
    // No label: the English stemmer, which leaves ß alone (German's Snowball maps it itself) and, but
    // for folding first, stems `grosse` and not `grösse`.
    expect(tokenize('groß Größe Größe Schließen', 'english')).toEqual(
      tokenize('gross grosse Grösse schliessen', 'english'),
    );
  });

  it('maps language labels to stemmers', () => {
    expect(stemmerNameFor(null)).toBe('english');
    expect(stemmerNameFor('pt-BR')).toBe('portuguese');
    expect(stemmerNameFor('ES')).toBe('spanish');
    expect(stemmerNameFor('ar')).toBe('arabic');
    expect(stemmerNameFor('zh-Hans')).toBeNull();
    expect(stemmerNameFor('ko')).toBeNull();
    // Labels are untrusted (docs.json, request filters): names of Object.prototype's members are none.
    for (const label of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])
      expect(stemmerNameFor(label), label).toBeNull();
    expect(stemmerNameFor('xx')).toBeNull();
  });
});

describe('analyzeChunk', () => {
  it('produces a compact JSON-serialisable analysis that survives a round trip', () => {
    const a = analyzeChunk({
      pageTitle: 'Picture settings',
      headings: ['Picture mode'],
      text: 'Choose a picture mode. The constructor and toString are words too.',
      language: 'en',
    });
    const back: unknown = JSON.parse(JSON.stringify(a));
    expect(isAnalyzedChunk(back)).toBe(true);
    expect(back).toEqual(a);
    expect(a.s).toBe('english');
    expect(a.l).toEqual([2, 2, 7]);
    const [bodyTerms, bodyCounts] = a.b;
    expect(bodyCounts[bodyTerms.indexOf('pictur')]).toBe(1);
    expect(bodyTerms).toContain('constructor');
    expect(bodyTerms).toContain('tostr');
    expect(a.p[0].length).toBeGreaterThan(0);
  });

  it('analyzes queries like chunks of the same language', () => {
    const q = analyzeQuery('Cómo configurar los agentes', 'es');
    expect(q.stemmer).toBe('spanish');
    expect(q.terms.map((t) => t.term)).toEqual(['configur', 'agent']);
    expect(q.pairs).toHaveLength(1);
  });
});
