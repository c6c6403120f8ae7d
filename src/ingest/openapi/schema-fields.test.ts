import { describe, expect, it } from 'vitest';
import { renderOperation } from './operation-markdown.ts';
import { schemaFacts, schemaFieldLines } from './schema-fields.ts';

describe('schema values that JSON.stringify cannot write', () => {
  it('writes a default, constant and enum that hold their own schema (a $ref cycle) instead of throwing', () => {
    // What dereferencing makes of `default: {$ref: '#/components/schemas/C'}` inside C.
    const schema: Record<string, unknown> = { type: 'object' };
    schema.default = schema;
    schema.const = schema;
    schema.enum = [schema];
    schema.properties = { c: schema };
    expect(schemaFacts(schema)).toContain('Default: `{"type":"object","default":"(recursive)"');
    expect(schemaFieldLines(schema, { left: 10, cut: false })).toEqual([
      expect.stringMatching(/^- `c` \(object\): One of: `\{"type":"object",.*Same structure as its parent/),
    ]);
  });

  it('writes a bounded example of a small document whose shared references fan out exponentially', () => {
    let example: unknown = 'leaf';
    for (let level = 0; level < 50; level++) example = { a: example, b: example };
    const spec = {
      file: 'api.yaml',
      version: '3.0.0',
      doc: {
        openapi: '3.0.0',
        paths: {
          '/x': {
            get: {
              responses: { '200': { description: 'ok', content: { 'application/json': { example } } } },
            },
          },
        },
      },
    };
    const started = performance.now();
    const page = renderOperation(spec, 'get', '/x');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(page?.markdown).toContain('```json\n{\n  "a": {\n    "a": {');
    expect(page?.markdown.length).toBeLessThan(10_000);
  });
});
