import { describe, expect, it } from 'vitest';
import { liveMarkup } from '../testing/live-markup.ts';
import { inertLine, inertMarkdown } from './inert-markdown.ts';

const HOSTILE = [
  '[esc](javascript:alert(1)) and <img src=x onerror=alert(2)> and <javascript:alert(3)>',
  '![pixel](https://tracker.example/p.gif) and [ref][r] and <!-- c --> and </div>',
  '[r]: javascript:alert(4)',
  'already \\<b> escaped, a backslash \\\\<img src=x onerror=alert(5)> and an escaped \\`<svg onload=alert(6)>`',
  '<div>',
  '<img src=x onerror=alert(7)>',
  '</div>',
].join('\n\n');

describe('inert Markdown', () => {
  it('leaves nothing in docs text that links, loads or is HTML', () => {
    expect(liveMarkup(HOSTILE).length).toBeGreaterThan(5);
    expect(liveMarkup(inertMarkdown(HOSTILE))).toEqual([]);
    expect(liveMarkup(inertLine(HOSTILE.replace(/\n+/g, ' ')))).toEqual([]);
  });

  it('reads the same, and keeps code as written', () => {
    const text =
      'Use `<div>` and `` a ` [x](y) `` here.\n\n```html\n<img src="a.png">\n[x](y)\n```\n\nA <b>tag</b> [x](y).';
    expect(inertMarkdown(text)).toBe(
      'Use `<div>` and `` a ` [x](y) `` here.\n\n```html\n<img src="a.png">\n[x](y)\n```\n\nA \\<b>tag\\</b> [x\\](y).',
    );
    expect(inertMarkdown('No markup: a < b and [1] and items[0].')).toBe(
      'No markup: a < b and [1] and items[0].',
    );
  });

  it('does not take an indented fence for code: an unindented line after it is not in it', () => {
    const text = '- item\n\n  ```\n<img src=x onerror=alert(1)>\n  ```';
    expect(liveMarkup(inertMarkdown(text))).toEqual([]);
  });
});
