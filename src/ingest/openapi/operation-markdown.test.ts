import { describe, expect, it } from 'vitest';
import { MAX_OPERATION_PAGE_CHARS, renderOperation } from './operation-markdown.ts';

describe('what a spec shares, repeated on each of its operation pages', () => {
  const spec = (extra: Record<string, unknown>, response: Record<string, unknown> = {}) => ({
    file: 'api.json',
    version: '3.0.0',
    doc: {
      openapi: '3.0.0',
      paths: { '/x': { get: { summary: 'X', responses: { '200': { description: 'ok', ...response } } } } },
      ...extra,
    },
  });

  it('lists ten servers and security schemes at most, each name or URL cut at 200 characters', () => {
    const servers = Array.from({ length: 50 }, (_, i) => ({
      url: `https://${'a'.repeat(200_000)}${i}.example`,
    }));
    const securitySchemes = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [
        `${'k'.repeat(1_000)}${i}`,
        { type: 'apiKey', in: 'header', name: 'n'.repeat(1_000) },
      ]),
    );
    const security = [Object.fromEntries(Object.keys(securitySchemes).map((k) => [k, []]))];
    const page = renderOperation(spec({ servers, security, components: { securitySchemes } }), 'get', '/x');
    expect(page?.markdown.length).toBeLessThan(20_000);
    expect(page?.markdown).toContain(`Base URL: \`https://${'a'.repeat(192)}…\``);
    expect(page?.markdown.match(/^- `k/gm)).toHaveLength(10);
  });

  it('stops a page at MAX_OPERATION_PAGE_CHARS and says so', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 600 }, (_, i) => [`f${i}`, { type: 'string', description: 'd'.repeat(4_000) }]),
    );
    const page = renderOperation(
      spec({}, { content: { 'application/json': { schema: { type: 'object', properties } } } }),
      'get',
      '/x',
    );
    const markdown = page?.markdown ?? '';
    expect(markdown.length).toBeLessThan(MAX_OPERATION_PAGE_CHARS + 200);
    expect(markdown).toContain('- `f0` (string): ddd');
    expect(markdown.trimEnd().endsWith(`(pages stop at ${MAX_OPERATION_PAGE_CHARS} characters).`)).toBe(true);
  });
});
