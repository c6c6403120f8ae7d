import { describe, expect, it } from 'vitest';
import { longFormTerms } from './abbreviations.ts';

describe('short forms readers type', () => {
  it('stand for their long form, stemmed as the query is', () => {
    expect(longFormTerms('env', 'english')).toEqual(['environ']);
    expect(longFormTerms('repo', 'english')).toEqual(['repositori']);
    expect(longFormTerms('auth', 'english')).toEqual(['authent']);
    expect(longFormTerms('k8s', 'english')).toEqual(['kubernet']);
    expect(longFormTerms('ram', 'english')).toEqual(['memori']);
    expect(longFormTerms('postgres', 'english')).toEqual(['postgresql']);
    // Without a stemmer the long form is the word as written.
    expect(longFormTerms('config', null)).toEqual(['configuration']);
  });

  it('are found as written and as the stemmer leaves them', () => {
    // "vars" is the stemmer's "var"; "creds" its "cred".
    expect(longFormTerms('vars', 'english')).toEqual(['variabl']);
    expect(longFormTerms('var', 'english')).toEqual(['variabl']);
    expect(longFormTerms('cred', 'english')).toEqual(['credenti']);
  });

  it('leave every other word alone', () => {
    // Nor short forms whose long form stems into another word: "prod" (product), "deps" (depend).
    for (const term of [
      'docker',
      'environ',
      'app',
      'doc',
      'spec',
      'model',
      '',
      'prod',
      'dep',
      'impl',
      'info',
    ])
      expect(longFormTerms(term, 'english')).toEqual([]);
  });
});
