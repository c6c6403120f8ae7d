import { describe, expect, it } from 'vitest';
import { listOperations, MAX_OPERATION_PAGE_ID_CHARS, operationPageId } from './operations.ts';

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

describe('operationPageId', () => {
  const operation = (href: string) => ({
    method: 'get',
    path: '/x',
    summary: 'X',
    tag: null,
    tagLabel: null,
    href,
    hidden: false,
  });

  it('keeps an x-mint.href inside the site: dot segments resolved, a URL read as its path', () => {
    const id = (href: string) => operationPageId(operation(href), null, new Set());
    expect(id('/api/users/create')).toBe('api/users/create');
    expect(id('../../../etc/passwd')).toBe('etc/passwd');
    expect(id('/api/./v1/../users')).toBe('api/users');
    expect(id('https://evil.example/x')).toBe('x');
    expect(id('https://docs.example.com/api/Get%20User?x=1#y')).toBe('api/get user');
    expect(id('..\\..\\win')).toBe('win');
    // Nothing left: the operation's own name.
    expect(id('../..')).toBe('get-operation');
  });
});

describe('operationPageId lengths', () => {
  it('bounds an id made of a long tag, summary or href, and numbers ids that the cut makes equal', () => {
    const long = (c: string) => c.repeat(100_000);
    const base = {
      method: 'get',
      path: '/x',
      summary: long('s'),
      tag: long('t'),
      tagLabel: null,
      hidden: false,
    };
    const generated = operationPageId({ ...base, href: null }, null, new Set());
    expect(generated).toBe(`api-reference/${'t'.repeat(150)}/${'s'.repeat(150)}`);
    const href = operationPageId({ ...base, href: `/${long('h')}` }, null, new Set());
    expect(href).toBe('h'.repeat(MAX_OPERATION_PAGE_ID_CHARS));
    expect(operationPageId({ ...base, href: `/${long('h')}` }, null, new Set([href]))).toBe(`${href}-1`);
    // Never half of a character: 🙂 is two UTF-16 units.
    const emoji = operationPageId({ ...base, href: `/${'🙂'.repeat(400)}` }, null, new Set());
    expect(emoji).toBe('🙂'.repeat(250));
  });
});
