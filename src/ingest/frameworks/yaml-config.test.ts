import { describe, expect, it } from 'vitest';
import { MAX_STATIC_NODES } from './limits.ts';
import { asArray, asObject, asString, field, type StaticValue } from './static-value.ts';
import { readYamlConfig } from './yaml-config.ts';

const value = (source: string): StaticValue => {
  const result = readYamlConfig(source);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
};

/** Counts the values a StaticValue holds, the way the budget does. */
const size = (v: StaticValue): number =>
  1 +
  (v.kind === 'array'
    ? v.items.reduce((n, item) => n + size(item), 0)
    : v.kind === 'object'
      ? [...v.entries.values()].reduce((n, item) => n + size(item), 0)
      : 0);

describe('readYamlConfig', () => {
  it('reads mkdocs.yml custom tags without failing, with lines', () => {
    const config = value(
      [
        'site_name: Acme',
        'markdown_extensions:',
        '  - pymdownx.emoji:',
        '      emoji_index: !!python/name:material.extensions.emoji.twemoji',
        'extra:',
        '  key: !ENV [GOOGLE_KEY, "none"]',
        '  dir: !relative $config_dir',
      ].join('\n'),
    );
    expect(asString(field(config, 'site_name'))).toBe('Acme');
    const emoji = field(asArray(field(config, 'markdown_extensions'))?.[0], 'pymdownx.emoji');
    // The python name is the tag itself; its (empty) value is all a navigation reader could use.
    expect(field(emoji, 'emoji_index')).toEqual({ kind: 'string', value: '', line: 4 });
    // `!ENV [VAR, default]` is the default MkDocs uses without the variable; `!ENV VAR` alone is nothing.
    expect(field(field(config, 'extra'), 'key')).toEqual({ kind: 'string', value: 'none', line: 6 });
    const named = value('site_name: !ENV [SITE_NAME, OTHER, "Paperback Docs"]\nrepo: !ENV REPO_URL');
    expect(asString(field(named, 'site_name'))).toBe('Paperback Docs');
    expect(field(named, 'repo')).toEqual({ kind: 'null', line: 2 });
  });

  it('keeps __proto__ as a key and never touches Object.prototype', () => {
    const config = value('__proto__:\n  polluted: yes\nconstructor: 1\n');
    expect(asObject(field(config, '__proto__'))?.entries.has('polluted')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stops expanding aliases at the node budget (billion laughs)', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const result = readYamlConfig(lines.join('\n'));
    // Either the yaml package refuses the aliases or the expansion stops at the budget.
    if (result.ok) expect(size(result.value)).toBeLessThanOrEqual(MAX_STATIC_NODES + 100);
    else expect(result.reason).toMatch(/alias|YAML/i);
  });

  it('reports invalid YAML with its line', () => {
    const result = readYamlConfig('site_name: x\nnav: [a, b\n');
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid YAML: /) });
    expect(result.ok === false && result.line).toBeGreaterThan(1);
  });
});
