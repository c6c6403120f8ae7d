import { describe, expect, it } from 'vitest';
import { sectionHtml } from './section-html.ts';
import { storedTablesAsGfm } from './stored-tables.ts';

describe('stored tables', () => {
  const stored = [
    'Every setting:',
    'Variable | Default | What it controls',
    'PORT | 3000 | TCP port',
    'HOST | 0.0.0.0 | `a|b` interface',
    'Set them before the start.',
  ].join('\n');

  it('are written back as GFM tables, the first row the header, pipes in cells escaped', () => {
    expect(storedTablesAsGfm(stored)).toBe(
      [
        'Every setting:',
        '',
        '| Variable | Default | What it controls |',
        '| --- | --- | --- |',
        '| PORT | 3000 | TCP port |',
        '| HOST | 0.0.0.0 | `a\\|b` interface |',
        '',
        'Set them before the start.',
      ].join('\n'),
    );
  });

  it('render as a table in the page view', () => {
    const html = sectionHtml(stored, '/p/') ?? '';
    expect(html).toContain('<table>');
    expect(html).toContain('<th>Variable</th>');
    expect(html).toContain('<td>TCP port</td>');
    expect(html).toContain('<code>a|b</code>');
    expect(html).toContain('<p>Set them before the start.</p>');
  });

  it('keep a pipe ingestion escaped in its cell, escaped once', () => {
    const text = ['Field | Type', 'name | `string \\| null`'].join('\n');
    expect(storedTablesAsGfm(text)).toBe(
      ['| Field | Type |', '| --- | --- |', '| name | `string \\| null` |'].join('\n'),
    );
    expect(sectionHtml(text, '/p/')).toContain('<td><code>string | null</code></td>');
  });

  it('leave alone code, single rows and lines of different widths', () => {
    const text = ['```', 'a | b', 'c | d', '```', 'x | y', 'one line', 'a | b', 'a | b | c'].join('\n');
    expect(storedTablesAsGfm(text)).toBe(text);
    expect(storedTablesAsGfm('no table here')).toBe('no table here');
  });
});
