import { describe, expect, it } from 'vitest';
import { listOperations } from './operations.ts';

describe('listOperations', () => {
  it('skips a path item whose $ref has a malformed % escape, and lists the rest', () => {
    // decodeURIComponent throws on `%zz`: the listing ran on the main thread, so it failed the whole ingestion.
    const doc = {
      openapi: '3.1.0',
      paths: {
        '/a': { $ref: '#/components/pathItems/%zz' },
        '/b': { get: { summary: 'B' } },
        '/c': { $ref: '#/components/pathItems/C%20item' },
      },
      components: { pathItems: { 'C item': { post: { summary: 'C' } } } },
    };
    expect(listOperations(doc).map((o) => `${o.method} ${o.path}`)).toEqual(['get /b', 'post /c']);
  });
});
