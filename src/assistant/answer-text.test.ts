import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { namedTerms, questionTerms, splitUnits, terms, words } from './answer-text.ts';

describe('answer text', () => {
  it('namedTerms: capitalised words past the first, and identifiers', () => {
    expect([...namedTerms('Is there a Terraform provider for GraphQL and max_rpm in gpt-4o?')]).toEqual([
      'terraform',
      'graphql',
      'max',
      'rpm',
      'gpt',
      '4o',
    ]);
    expect([...namedTerms('How do I install the CLI?')]).toEqual(['cli']);
    expect(namedTerms('Install the docs').size).toBe(0);
  });

  it("questionTerms drops another language's function words, and English is unchanged", () => {
    expect(questionTerms('Comment connecter un dépôt hébergé sur Gitea ?')).toEqual(
      terms('connecter dépôt hébergé Gitea'),
    );
    expect(questionTerms('Posso usar o crewai com o Ollama?')).toEqual(terms('usar crewai Ollama'));
    expect(questionTerms('How do I connect a repository?')).toEqual(terms('connect repository'));
    // Question scaffolding of English: counts and contractions say nothing about the topic.
    expect(questionTerms("What are two ways? It isn't working")).toEqual(terms('ways working'));
    expect(questionTerms('whats the default port, it doesnt start')).toEqual(terms('default port start'));
  });

  it('starts a sentence at inline code after a full stop, and not after an abbreviation', () => {
    const texts = (text: string) => splitUnits(text).map((u) => u.text);
    expect(
      texts('To see usage, run the usage command with a site. `usage` prints the balance per day.'),
    ).toEqual(['To see usage, run the usage command with a site.', '`usage` prints the balance per day.']);
    expect(texts('Pass a flag to the command, e.g. `--json` for machine output.')).toEqual([
      'Pass a flag to the command, e.g. `--json` for machine output.',
    ]);
  });

  it('does not end a sentence inside parentheses, a quotation or inline code', () => {
    const texts = (text: string) => splitUnits(text).map((u) => u.text);
    expect(
      texts(
        'The answerer replies with a fixed line ("Hello! I answer questions about these docs."). Then it stops.',
      ),
    ).toEqual([
      'The answerer replies with a fixed line ("Hello! I answer questions about these docs.").',
      'Then it stops.',
    ]);
    expect(texts('Set `a. B` as the value. It works.')).toEqual(['Set `a. B` as the value.', 'It works.']);
    // A bracket never closed keeps its sentence open only so far.
    const long = `A stray ( opens here. ${'Words go on and on. '.repeat(30)}`;
    expect(texts(long).length).toBeGreaterThan(1);
  });

  it('keeps a list item wrapped over several lines whole, and its next paragraph apart', () => {
    // As stored: the item's lines joined by a newline and indented; its paragraphs likewise.
    const units = splitUnits(
      [
        'Before you upgrade:',
        '- A Docent older than its database refuses to start. Take a',
        '  backup before an upgrade, on a file database a copy of the',
        '  file.',
        '  Then start the new version.',
        '- Replace every replica at once.',
      ].join('\n'),
    );
    expect(units.map((u) => [u.kind, u.text])).toEqual([
      ['sentence', 'Before you upgrade:'],
      [
        'item',
        'A Docent older than its database refuses to start. Take a backup before an upgrade, on a file database a copy of the file.',
      ],
      ['sentence', 'Then start the new version.'],
      ['item', 'Replace every replica at once.'],
    ]);
    // Not the item's: a paragraph after the list, a table, a quote or a tag.
    for (const after of [
      'Docent stores every answer.',
      '| Flag | Meaning |',
      '> Note: it matters.',
      '<div>x</div>',
    ])
      expect(splitUnits(`- PostgreSQL 15 or later\n${after}`)[0]?.text, after).toBe('PostgreSQL 15 or later');
    expect(splitUnits('- Flags\n  | a | b |')[0]?.text).toBe('Flags');
  });

  it('does not quote navigation whose headings ran together', () => {
    const units = splitUnits(
      'IntroductionBenefits of Automated RoutingAdvantages of Using ClaudeDefining the Task\n\nClaude routes tickets by intent.',
    );
    expect(units.map((u) => u.text)).toEqual(['Claude routes tickets by intent.']);
    const rows = splitUnits(
      [
        'Streaming with SDKs Event types Ping events Error events Other events Delta types Text delta',
        '',
        'Prompt Engineering GuideOptimize performance through prompting.Claude CookbooksLearn with notebooks.',
        '',
        'Each stream ends with a message_stop event.',
      ].join('\n'),
    );
    expect(rows.map((u) => u.text)).toEqual(['Each stream ends with a message_stop event.']);
  });

  it('quotes a list item written mostly in inline code, not JSON or code pasted as prose', () => {
    const texts = (text: string) => splitUnits(text).map((u) => u.text);
    expect(
      texts(
        [
          'Filter by the label:',
          '',
          '- `"filter": {"version": "v2"}` in a request to the search API;',
          "- `--version v2` with the CLI's `search`.",
        ].join('\n'),
      ),
    ).toEqual([
      'Filter by the label:',
      '`"filter": {"version": "v2"}` in a request to the search API;',
      "`--version v2` with the CLI's `search`.",
    ]);
    expect(texts('{"filter": {"version": "v2"}, "limit": 5} is sent as is.')).toEqual([]);
    expect(texts('Then set x = f(y) and call run(x) before the request.')).toEqual([]);
  });

  it('finds the words and named terms of ASCII text as the Unicode patterns do', () => {
    // The general definitions, which text with any character past ASCII still goes through.
    const wordsByPattern = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const namedByPattern = (question: string): string[] => {
      const out = new Set<string>();
      const tokens = question.match(/[\p{L}\p{N}][\p{L}\p{N}_.'-]*/gu) ?? [];
      for (const [i, token] of tokens.entries()) {
        const rest = token.slice(1);
        if ((i > 0 && /^\p{Lu}/u.test(token)) || /\p{Lu}.*\p{Lu}|\d|_|\./u.test(rest))
          for (const term of terms(token)) out.add(term);
      }
      return [...out];
    };
    const ascii = fc.stringMatching(/^[ -~\t\n]{0,60}$/);
    const wordy = fc
      .array(
        fc.constantFrom(
          'Install',
          'the',
          'CLI',
          'gpt-4o',
          'max_rpm',
          'v1.2',
          "don't",
          'GraphQL',
          ' ',
          '?',
          '12345',
          'x',
        ),
      )
      .map((parts) => parts.join(' '));
    fc.assert(
      fc.property(fc.oneof(ascii, wordy), (text) => {
        expect(words(text)).toEqual(wordsByPattern(text));
        expect([...namedTerms(text)]).toEqual(namedByPattern(text));
      }),
      { numRuns: 500 },
    );
    expect(words('Ünïcode Wörds and ASCII')).toEqual(['ünïcode', 'wörds', 'and', 'ascii']);
  });

  it('ends a code unit where /\\s+$/ would', () => {
    // Every white space and line terminator `\s` knows: `trimEnd` drops the same characters.
    const space = ' \t\n\r\v\f\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
    for (const tail of space)
      expect(`a${tail} ${tail}`.trimEnd()).toBe(`a${tail} ${tail}`.replace(/\s+$/, ''));
    const [unit] = splitUnits('```js\nlet x = 1;  \n\n');
    expect(unit?.text).toBe('```js\nlet x = 1;  \n\n\n```');
  });
});
