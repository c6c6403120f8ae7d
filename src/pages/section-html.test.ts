import { describe, expect, it } from 'vitest';
import {
  MAX_RENDERED_SECTION_CHARS,
  MAX_RENDERED_SECTION_MARKUP,
  markdownPlainText,
  sectionHtml,
} from './section-html.ts';

describe('a section as HTML in the page view', () => {
  it('renders the docs’ Markdown: paragraphs, lists, code, tables, links into the page view', () => {
    const html = sectionHtml(
      [
        'Run the `ingest` command,\nthen check the job.',
        '',
        '- one\n- two',
        '',
        '```bash\nnpm run docent -- ingest docs --site acme\n```',
        '',
        '| a | b |\n|---|---|\n| 1 | 2 |',
        '',
        'See [the CLI](/guides/cli#ingest) or [the spec](https://example.com/spec).',
      ].join('\n'),
      '/sites/acme/pages/',
    );
    expect(html).toContain('<p>Run the <code>ingest</code> command,\nthen check the job.</p>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('npm run docent -- ingest docs --site acme');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('<a href="/sites/acme/pages/guides/cli#ingest">the CLI</a>');
    expect(html).toContain('<a href="https://example.com/spec">the spec</a>');
  });

  it('shows raw HTML as text and drops scripted links', () => {
    const html = sectionHtml(
      '<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) [y](//evil.example/)',
      '/sites/acme/pages/',
    );
    expect(html).not.toMatch(/<script|<img/i);
    expect(html).toContain('&#x3C;script>alert(1)&#x3C;/script>');
    expect(html).toContain('&#x3C;img src=x onerror=alert(1)>');
    expect(html).not.toContain('href="javascript');
    expect(html).not.toContain('href="/sites/acme/pages//evil.example');
  });

  it('leaves long or markup-dense sections to be shown as written', () => {
    expect(sectionHtml('a'.repeat(MAX_RENDERED_SECTION_CHARS + 1), '/p/')).toBeNull();
    expect(sectionHtml('*a* '.repeat(MAX_RENDERED_SECTION_MARKUP / 2 + 1), '/p/')).toBeNull();
    expect(sectionHtml('*a* '.repeat(10), '/p/')).toContain('<em>a</em>');
  });
});

describe('markdownPlainText', () => {
  it("is an answer's text without its Markdown syntax, blocks apart", () => {
    expect(
      markdownPlainText('Run `docent keys rotate` now [1].\n\n- [Keys](/keys#rotate)\n- **Bold** item'),
    ).toBe('Run docent keys rotate now [1]. Keys Bold item');
    const dense = '*a* '.repeat(MAX_RENDERED_SECTION_MARKUP);
    expect(markdownPlainText(dense)).toBe(dense);
  });
});
