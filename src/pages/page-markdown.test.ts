import { describe, expect, it } from 'vitest';
import { liveMarkup } from '../testing/live-markup.ts';
import { renderPageMarkdown } from './page-markdown.ts';
import type { StoredPage } from './stored-page.ts';

const page = (sections: StoredPage['sections']): StoredPage => ({
  path: 'p',
  title: 'P',
  description: null,
  contentHash: 'h',
  sections,
});

describe('page Markdown', () => {
  it('writes a table that ingestion cut into chunks as one table, under its own header', () => {
    const section = (text: string) => ({ anchor: 'settings', headings: ['Settings'], text });
    const markdown = renderPageMarkdown(
      page([
        section('Name | Value\nkey0 | 0\nkey1 | 1'),
        section('key2 | 2\nkey3 | 3'),
        section('key4 | 4\n\nAfter the table.'),
      ]),
    );
    expect(markdown).toBe(
      [
        '# P',
        '',
        '## Settings',
        '',
        '| Name | Value |',
        '| --- | --- |',
        '| key0 | 0 |',
        '| key1 | 1 |',
        '| key2 | 2 |',
        '| key3 | 3 |',
        '| key4 | 4 |',
        '',
        'After the table.',
        '',
      ].join('\n'),
    );
  });

  it('keeps apart the tables of different sections, and a table from text after a chunk', () => {
    const markdown = renderPageMarkdown(
      page([
        { anchor: 'a', headings: ['A'], text: 'x | y\n1 | 2' },
        { anchor: 'b', headings: ['B'], text: 'x | y\n3 | 4' },
        { anchor: 'b', headings: ['B'], text: 'Text.' },
      ]),
    );
    expect(markdown).toContain('## A\n\n| x | y |\n| --- | --- |\n| 1 | 2 |\n\n## B\n\n| x | y |');
    expect(markdown).toContain('| 3 | 4 |\n\nText.');
  });
});

describe('page Markdown of hostile docs', () => {
  it('keeps text that was escaped in the docs text: no link, image or HTML an agent would render', () => {
    // Stored as ingestion stores `\[esc\](javascript:…)`, `&lt;img …&gt;` and a front matter title.
    const markdown = renderPageMarkdown({
      path: 'p',
      title: 'Title [t](javascript:alert(1)) <svg onload=alert(2)>',
      description: '![pixel](https://tracker.example/d.gif)',
      contentHash: 'h',
      sections: [
        {
          anchor: null,
          headings: [],
          text: 'Escaped [esc](javascript:alert(3)) and <img src=x onerror=alert(4)>.\n\n```html\n<img src="kept.png">\n```',
        },
      ],
    });
    expect(liveMarkup(markdown)).toEqual([]);
    expect(markdown).toContain('```html\n<img src="kept.png">\n```');
  });
});
