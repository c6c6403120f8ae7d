import { describe, expect, it } from 'vitest';
import { pageUrl, publishedUrl } from './site-search.ts';

describe('page URLs', () => {
  it('percent-encode what ends or changes a URL in a page path, and keep the rest readable', () => {
    // An OpenAPI summary made the page path: before, the link ended at "?".
    expect(pageUrl('http://localhost:3000/sites/b/pages', 'ref/search-?-query-#-hash', null)).toBe(
      'http://localhost:3000/sites/b/pages/ref/search-%3F-query-%23-hash',
    );
    expect(pageUrl('https://docs.example.com', 'sale/50%-off', 'terms')).toBe(
      'https://docs.example.com/sale/50%25-off#terms',
    );
    expect(pageUrl(null, 'guides/my page', null)).toBe('/guides/my%20page');
    expect(pageUrl('https://docs.example.com/', '/zh/快速开始', null)).toBe(
      'https://docs.example.com/zh/快速开始',
    );
    expect(publishedUrl('https://docs.example.com', 'guides/index', null)).toBe(
      'https://docs.example.com/guides/',
    );
  });
});
