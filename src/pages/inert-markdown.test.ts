import { describe, expect, it } from 'vitest';
import { liveMarkup } from '../testing/live-markup.ts';
import { inertLine, inertMarkdown, inertState } from './inert-markdown.ts';

const IMG = '<img src=x onerror=alert(1)>';

const HOSTILE = [
  '[esc](javascript:alert(1)) and <img src=x onerror=alert(2)> and <javascript:alert(3)>',
  '![pixel](https://tracker.example/p.gif) and [ref][r] and <!-- c --> and </div>',
  '[r]: javascript:alert(4)',
  'already \\<b> escaped, a backslash \\\\<img src=x onerror=alert(5)> and an escaped \\`<svg onload=alert(6)>`',
  '<div>',
  '<img src=x onerror=alert(7)>',
  '</div>',
].join('\n\n');

/** Text whose code, read line by line, is not where a Markdown parser puts it. */
const MISREAD = {
  'a fence after a list marker': `- \`\`\`\n  x\n  \`\`\`\n  ${IMG}`,
  'a fence in a list item closed further out': `- a\n\n    \`\`\`\n    x\n  \`\`\`\n  ${IMG}`,
  'a fence whose list item ends': `- item\n\n  \`\`\`\n${IMG}\n  \`\`\``,
  'a closing line indented more than a parser closes at': `\`\`\`\n        \`\`\`\n<b>\n\`\`\`\n${IMG}`,
  'a code span over two lines': `a \`x\ny\` ${IMG} \`z\``,
  'a code span a GFM table cell splits': `| a | b |\n| --- | --- |\n| \`a | ${IMG} \`x\` |`,
  'an escaped backtick': `\\\`${IMG}\``,
};

describe('inert Markdown', () => {
  it('leaves nothing in docs text that links, loads or is HTML', () => {
    expect(liveMarkup(HOSTILE).length).toBeGreaterThan(5);
    expect(liveMarkup(inertMarkdown(HOSTILE))).toEqual([]);
    expect(liveMarkup(inertLine(HOSTILE.replace(/\n+/g, ' ')))).toEqual([]);
  });

  it.each(Object.entries(MISREAD))('takes nothing for code that a parser does not: %s', (_, text) => {
    expect(liveMarkup(text).length).toBeGreaterThan(0);
    expect(liveMarkup(inertMarkdown(text))).toEqual([]);
  });

  it('reads the same, and keeps code as written: fences, indented in a list too, spans, table cells', () => {
    const text = [
      'Use `<div>` and `` a ` [x](y) `` here.',
      '',
      '```html',
      '<img src="a.png">',
      '[x](y)',
      '```',
      '',
      '1. Add this:',
      '  ```html',
      '  <div class="x"></div>',
      '  ```',
      '',
      '| Name | Type |',
      '| --- | --- |',
      '| `run` | `Promise<void>` or `string \\| null` |',
      '',
      'Run `orgs create --name <name>` with `--overage on|off`, outside a table.',
      '',
      'A <b>tag</b> [x](y).',
    ].join('\n');
    expect(inertMarkdown(text)).toBe(text.replace('A <b>tag</b> [x](y).', 'A \\<b>tag\\</b> [x\\](y).'));
    expect(inertMarkdown('No markup: a < b and [1] and items[0].')).toBe(
      'No markup: a < b and [1] and items[0].',
    );
  });
});

describe('inert Markdown over several texts', () => {
  it('goes on from where the text before it left off: a fence left open, a line read two ways', () => {
    const next = `\`\`\`html\n${IMG}\n\`\`\``;
    for (const before of ['```', '- ```\n  x']) {
      const state = inertState();
      const joined = `${inertMarkdown(before, state)}\n\n${inertMarkdown(next, state)}`;
      expect(liveMarkup(joined)).toEqual([]);
    }
  });
});
