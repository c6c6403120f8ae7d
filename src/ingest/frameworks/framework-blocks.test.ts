import { describe, expect, it } from 'vitest';
import {
  rewriteDocusaurusAdmonitionTitles,
  rewriteMkDocsBlocks,
  rewriteVitePressBlocks,
} from './framework-blocks.ts';

const page = (...lines: string[]): string => lines.join('\n');

describe('rewriteMkDocsBlocks', () => {
  it('turns an admonition into its title and its de-indented body, line for line', () => {
    const source = page(
      'Before.',
      '',
      '!!! warning "Windows"',
      '    Install the Visual Studio Build Tools first.',
      '',
      '    ```bash',
      '    winget install lumen',
      '    ```',
      '',
      'After.',
    );
    const out = rewriteMkDocsBlocks(source);
    expect(out).toBe(
      page(
        'Before.',
        '',
        'Windows:',
        'Install the Visual Studio Build Tools first.',
        '',
        '```bash',
        'winget install lumen',
        '```',
        '',
        'After.',
      ),
    );
    expect(out.split('\n')).toHaveLength(source.split('\n').length);
  });

  it('names an untitled admonition by its type, and reads collapsible ones and modifiers', () => {
    expect(rewriteMkDocsBlocks(page('!!! note', '    Plain body.'))).toBe(page('Note:', 'Plain body.'));
    expect(rewriteMkDocsBlocks(page('??? tip "Faster"', '    Use a cache.'))).toBe(
      page('Faster:', 'Use a cache.'),
    );
    expect(rewriteMkDocsBlocks(page('???+ info inline end "Aside"', '    Side note.'))).toBe(
      page('Aside:', 'Side note.'),
    );
    // An explicitly empty title shows none.
    expect(rewriteMkDocsBlocks(page('!!! note ""', '    No title.'))).toBe(page('', 'No title.'));
  });

  it('turns content tabs into one titled part each, and rewrites blocks nested in a body', () => {
    const out = rewriteMkDocsBlocks(
      page(
        '=== "Linux"',
        '',
        '    ```bash',
        '    sudo apt install lumen',
        '    ```',
        '',
        '=== "macOS"',
        '',
        '    !!! tip',
        '        Homebrew works too.',
        '',
        '    ```bash',
        '    brew install lumen',
        '    ```',
      ),
    );
    expect(out).toBe(
      page(
        'Linux:',
        '',
        '```bash',
        'sudo apt install lumen',
        '```',
        '',
        'macOS:',
        '',
        'Tip:',
        'Homebrew works too.',
        '',
        '```bash',
        'brew install lumen',
        '```',
      ),
    );
  });

  it('leaves fenced code, indented code and text that only looks alike untouched', () => {
    const source = page(
      '```text',
      '!!! warning "not a block here"',
      '    body of a sample',
      '```',
      '',
      '    !!! note "an indented code block"',
      '',
      'A sentence with !!! in it, and a === "b" comparison.',
    );
    expect(rewriteMkDocsBlocks(source)).toBe(source);
  });
});

describe('rewriteDocusaurusAdmonitionTitles', () => {
  it('reads the older `:::tip Title` as the label it is today, outside code only', () => {
    const source = [
      ':::tip Default region',
      'Use eu-west-1.',
      ':::',
      '',
      ':::note[Already a label]',
      ':::',
      '',
      '```md',
      ':::tip Shown as an example',
      '```',
    ].join('\n');
    expect(rewriteDocusaurusAdmonitionTitles(source).split('\n')).toEqual([
      ':::tip[Default region]',
      'Use eu-west-1.',
      ':::',
      '',
      ':::note[Already a label]',
      ':::',
      '',
      '```md',
      ':::tip Shown as an example',
      '```',
    ]);
  });
});

describe('framework block rewrites on awkward input', () => {
  it('keeps CRLF line ends, reads tab indentation as four spaces, and keeps long titles whole', () => {
    expect(rewriteDocusaurusAdmonitionTitles(':::tip Default region\r\nUse it.\r\n:::\r\n')).toBe(
      ':::tip[Default region]\r\nUse it.\r\n:::\r\n',
    );
    expect(rewriteMkDocsBlocks('!!! note "Tabbed"\n\tBody with a tab.\nAfter.')).toBe(
      'Tabbed:\nBody with a tab.\nAfter.',
    );
    // A title with a long run of spaces inside is kept whole (the pattern has no lazy part to backtrack).
    const long = `:::tip a${' '.repeat(2_000)}b   `;
    expect(rewriteDocusaurusAdmonitionTitles(long)).toBe(`:::tip[a${' '.repeat(2_000)}b]`);
  });
});

// Cases as VitePress 1.6.4 renders them (`vitepress build`): `::: tip Pro tip` shows the title "Pro tip",
// `::: warning` its default title, `::: details Click me {open}` the summary "Click me", and
// `::: code-group` only tabs over its fences.
describe('rewriteVitePressBlocks', () => {
  it('turns a container into its title and body, line for line, the closing line blank', () => {
    const source = page(
      'In 2024 the scheduler changed.',
      '',
      '::: tip Pro tip',
      'The tangerine flag speeds up the bundle.',
      ':::',
      '',
      '::: details Click me {open}',
      'Hidden detail.',
      ':::',
      '::: warning',
      'Careful.',
      ':::',
    );
    const out = rewriteVitePressBlocks(source);
    expect(out).toBe(
      page(
        'In 2024 the scheduler changed.',
        '',
        'Pro tip:',
        'The tangerine flag speeds up the bundle.',
        '',
        '',
        'Click me:',
        'Hidden detail.',
        '',
        'Warning:',
        'Careful.',
        '',
      ),
    );
    expect(out.split('\n')).toHaveLength(source.split('\n').length);
  });

  it('drops the markers of code groups, raw and v-pre, and leaves fenced code and other names alone', () => {
    expect(
      rewriteVitePressBlocks(
        page('::: code-group', '', '```sh [npm]', ':::', '```', '', ':::', '::: unknown', 'Text.', ':::'),
      ),
    ).toBe(page('', '', '```sh [npm]', ':::', '```', '', '', '::: unknown', 'Text.', ':::'));
    expect(rewriteVitePressBlocks(page('::: v-pre', '{{ raw }}', ':::'))).toBe(page('', '{{ raw }}', ''));
  });

  it('reads GitHub-style alerts as their title and drops the [[toc]] marker', () => {
    // VitePress 1.6.4 shows `> [!TIP]` with the title "TIP", `> [!WARNING] Read this first` with its own.
    expect(
      rewriteVitePressBlocks(
        page(
          '[[toc]]',
          '',
          '> [!TIP]',
          '> Halves memory.',
          '',
          '> [!WARNING] Read this first',
          '> Deprecated.',
        ),
      ),
    ).toBe(page('', '', '> Tip:', '> Halves memory.', '', '> Read this first:', '> Deprecated.'));
    // Inside code, as written.
    expect(rewriteVitePressBlocks(page('```md', '> [!NOTE]', '[[toc]]', '```'))).toBe(
      page('```md', '> [!NOTE]', '[[toc]]', '```'),
    );
  });

  it('closes nested containers by their colons, and keeps CRLF line ends', () => {
    expect(
      rewriteVitePressBlocks(page(':::: details Outer', '::: tip', 'Inner.', ':::', 'Outer text.', '::::')),
    ).toBe(page('Outer:', 'Tip:', 'Inner.', '', 'Outer text.', ''));
    expect(rewriteVitePressBlocks('::: info Note\r\nBody.\r\n:::\r\n')).toBe('Note:\r\nBody.\r\n\r\n');
  });
});
