import { describe, expect, it } from 'vitest';
import { dereferenceSpec, parseSpecText } from './openapi-spec.ts';

describe('parseSpecText versions', () => {
  const versionOf = (text: string): string => {
    const parsed = parseSpecText('api.yaml', `${text}\npaths: {}\n`);
    return parsed.ok ? parsed.version : (parsed.warnings[0]?.message ?? '');
  };

  it('reads a version written unquoted in YAML, which YAML reads as a number', () => {
    expect(versionOf('openapi: 3.1')).toBe('3.1');
    expect(versionOf('openapi: 3.0')).toBe('3.0');
    expect(versionOf('swagger: 2.0')).toBe('2.0');
    expect(versionOf("openapi: '3.1.0'")).toBe('3.1.0');
  });

  it('names a version it does not read, rather than saying there is none', () => {
    expect(versionOf('openapi: 3.9.9')).toBe(
      'OpenAPI version "3.9.9" is not read (OpenAPI 3.0 to 3.2 and Swagger 2.0 are); its operations are not indexed',
    );
    expect(versionOf('openapi: 4')).toMatch(/^OpenAPI version "4.0" is not read/);
    expect(versionOf('info: {}')).toBe(
      'not an OpenAPI 3.x or Swagger 2.0 document (no "openapi" or "swagger" version)',
    );
  });
});

describe('dereferenceSpec depth', () => {
  it('resolves a document whose references chain 600 schemas deep, leaving only the deepest unresolved', async () => {
    // S0.next → S1 … → S599 → S0: past the library's 500 levels, which left every $ref of the file unresolved.
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < 600; i++)
      schemas[`S${i}`] = {
        type: 'object',
        properties: { name: { type: 'string' }, next: { $ref: `#/components/schemas/S${(i + 1) % 600}` } },
      };
    const doc = {
      openapi: '3.0.0',
      paths: {
        '/x': {
          get: {
            responses: {
              '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } },
            },
          },
        },
      },
      components: { schemas },
    };
    const { spec, warnings } = await dereferenceSpec('api.json', { doc, version: '3.0.0' });
    expect(warnings).toEqual([]);
    // The response schema, then two `next` hops down the chain: resolved objects, not `$ref`s.
    const at = (value: unknown, ...keys: string[]): unknown =>
      keys.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
    const schema = at(
      spec.doc,
      'paths',
      '/x',
      'get',
      'responses',
      '200',
      'content',
      'application/json',
      'schema',
    );
    expect(at(schema, 'properties', 'name')).toEqual({ type: 'string' });
    expect(at(schema, 'properties', 'next', 'properties', 'next', 'properties', 'name')).toEqual({
      type: 'string',
    });
  });
});
