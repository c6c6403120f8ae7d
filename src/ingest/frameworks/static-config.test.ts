import { describe, expect, it } from 'vitest';
import { readStaticModule } from './static-config.ts';
import { asArray, asObject, asString, field, type StaticValue } from './static-value.ts';

const exported = (source: string, file = 'config.ts'): StaticValue => {
  const result = readStaticModule(source, file);
  if (!result.ok) throw new Error(result.reason);
  if (!result.module.exported) throw new Error('nothing exported');
  return result.module.exported;
};

describe('readStaticModule', () => {
  it('reads an exported object literal through consts, TS assertions and defineConfig', () => {
    const value = exported(`
      import { defineConfig } from 'vitepress';
      const base = '/docs/';
      const items = [{ text: 'Intro', link: base }] as const;
      export default defineConfig({ title: \`Acme\`, items, count: -2, ok: true, none: null } satisfies object);
    `);
    expect(value.kind).toBe('call');
    if (value.kind !== 'call') return;
    expect(value).toMatchObject({ callee: 'defineConfig', from: 'vitepress', line: 5 });
    const options = value.args[0];
    expect(asString(field(options, 'title'))).toBe('Acme');
    expect(asString(field(asArray(field(options, 'items'))?.[0], 'link'))).toBe('/docs/');
    expect(field(options, 'count')).toMatchObject({ kind: 'number', value: -2 });
    expect(field(options, 'ok')).toMatchObject({ kind: 'boolean', value: true });
    expect(field(options, 'none')).toMatchObject({ kind: 'null' });
  });

  it('reads module.exports and the return of an exported (async) function', () => {
    expect(asString(field(exported('module.exports = { title: "cjs" };', 'a.js'), 'title'))).toBe('cjs');
    const fromFunction = exported(`
      export default async function createConfig() {
        const title = 'made';
        return { title };
      }
    `);
    expect(asString(field(fromFunction, 'title'))).toBe('made');
    expect(asString(field(exported('export default () => ({ title: "arrow" });', 'a.mjs'), 'title'))).toBe(
      'arrow',
    );
  });

  it('names what it cannot read, with its line, instead of guessing', () => {
    const value = exported(
      [
        "import { sidebar } from './sidebar.js';",
        'const local = { a: 1 };',
        'export default {',
        '  sidebar,',
        '  items: [...sidebar, makeItem()],',
        '  env: process.env.DOCS,',
        // A template literal with a placeholder, written as JS source.
        `  text: \`v\${1}\`,`,
        '  ...local,',
        '  ...other,',
        '};',
      ].join('\n'),
      'c.mjs',
    );
    expect(field(value, 'sidebar')).toEqual({
      kind: 'opaque',
      what: '"sidebar" imported from "./sidebar.js"',
      line: 4,
    });
    const items = asArray(field(value, 'items'));
    expect(items?.[0]).toEqual({
      kind: 'opaque',
      what: 'a spread of "sidebar" imported from "./sidebar.js"',
      line: 5,
    });
    expect(items?.[1]).toMatchObject({ kind: 'call', callee: 'makeItem', from: null, line: 5 });
    expect(field(value, 'env')).toMatchObject({
      kind: 'opaque',
      what: 'the value process.env.DOCS',
      line: 6,
    });
    expect(field(value, 'text')).toMatchObject({ kind: 'opaque', line: 7 });
    // A spread of a local literal merges; an unknown spread may hold any key that is absent.
    expect(field(value, 'a')).toMatchObject({ kind: 'number', value: 1 });
    expect(field(value, 'missing')).toEqual({
      kind: 'opaque',
      what: 'a spread of the variable other, which may set "missing"',
      line: 9,
    });
  });

  it('keeps __proto__ and constructor keys as data', () => {
    const value = exported(
      'export default { __proto__: { polluted: 1 }, constructor: "x", "__proto__x": 2 };',
    );
    expect(asObject(field(value, '__proto__'))?.entries.get('polluted')).toMatchObject({ value: 1 });
    expect(asString(field(value, 'constructor'))).toBe('x');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not loop on self-referencing consts', () => {
    const value = exported('const a = { b }; const b = { a }; export default a;', 'x.js');
    expect(field(field(value, 'b'), 'a')).toMatchObject({
      kind: 'opaque',
      what: expect.stringContaining('itself'),
    });
  });

  it('reports syntax errors with their line and a module without an export as such', () => {
    const broken = readStaticModule('export default {\n  title: "x",\n  oops oops\n};', 'bad.ts');
    expect(broken).toMatchObject({ ok: false, line: 3 });
    expect(broken.ok === false && broken.reason).toMatch(/^syntax error: /);
    expect(readStaticModule('const x = 1;', 'none.js')).toEqual({ ok: true, module: { exported: null } });
  });
});
