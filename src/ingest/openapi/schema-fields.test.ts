import { describe, expect, it } from 'vitest';
import { renderOperation } from './operation-markdown.ts';
import { MAX_TYPE_LABEL_SCHEMAS, schemaFacts, schemaFieldLines, typeLabel } from './schema-fields.ts';

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

describe('schemas shared level after level (small documents, exponential walks)', () => {
  /** `levels` levels of `width` schemas, each made (`key`) of every schema of the level below. */
  const layered = (key: 'oneOf' | 'allOf', width: number, levels: number): Record<string, unknown> => {
    let below: Record<string, unknown>[] = Array.from({ length: width }, (_, i) => ({
      type: 'object',
      properties: { [`f${i}`]: { type: 'string', format: `f${i}` } },
    }));
    for (let level = 0; level < levels; level++)
      below = Array.from({ length: width }, () => ({ [key]: below }));
    return { [key]: below };
  };

  it('names a bounded number of variants in a type label', () => {
    const started = performance.now();
    const label = typeLabel(layered('oneOf', 30, 5));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(label.split(' or ').length).toBeLessThanOrEqual(MAX_TYPE_LABEL_SCHEMAS + 1);
    expect(label.endsWith('…')).toBe(true);
    // A short choice is named in full, as before.
    expect(
      typeLabel({
        oneOf: [{ type: 'string' }, { title: 'Pet' }, { type: 'array', items: { type: 'integer' } }],
      }),
    ).toBe('string or Pet or array of integer');
  });

  it('merges allOf parts shared level after level once each', () => {
    const started = performance.now();
    const lines = schemaFieldLines(layered('allOf', 10, 7), { left: 600, cut: false });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(lines).toEqual(Array.from({ length: 10 }, (_, i) => `- \`f${i}\` (string (f${i}))`));
  });
});
