import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { declines } from './answered.ts';
import { PHRASES, type ReplyLanguage } from './answerer-phrases.ts';
import {
  BuiltinAnswerer,
  citedSourceIds,
  composeAnswer,
  definitionOf,
  NO_COVERAGE_MESSAGE,
  type RetrievedSource,
  splitDeltas,
} from './builtin-answerer.ts';
import { borrowedQuestion } from './retrieval-query.ts';
import { MIN_RETRIEVAL_STRENGTH } from './retrieval-strength.ts';

const sources: RetrievedSource[] = [
  {
    id: '1',
    pageTitle: 'Install the CLI',
    headings: ['Install on macOS'],
    url: 'https://docs.example.com/cli/install#macos',
    text: [
      'The Docent CLI runs on macOS, Linux and Windows.',
      'To install the CLI on macOS, run the installer with Homebrew:',
      '',
      '```bash',
      'brew install docent',
      '```',
      '',
      'After the install finishes, check the version with `docent --version`.',
      'The CLI needs Node 20 or later.',
    ].join('\n'),
    score: 12.5,
  },
  {
    id: '2',
    pageTitle: 'Billing',
    headings: ['Invoices'],
    url: 'https://docs.example.com/billing',
    text: 'Invoices are sent on the first day of each month. You can download past invoices from the dashboard.',
    score: 3.1,
  },
  {
    id: '3',
    pageTitle: 'Rate limits',
    headings: [],
    url: 'https://docs.example.com/limits',
    text: 'Each organization may send 10,000 requests per hour.\n\nWhen the limit is exceeded the API answers 429 with a Retry-After header.',
    score: 2.2,
  },
];

function callOptions(question: string, signal?: AbortSignal): LanguageModelV3CallOptions {
  return {
    prompt: [
      { role: 'system', content: 'Answer from the docs.' },
      { role: 'user', content: [{ type: 'text', text: 'An older question about billing?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Earlier answer.' }] },
      { role: 'user', content: [{ type: 'text', text: question }] },
    ],
    ...(signal === undefined ? {} : { abortSignal: signal }),
  };
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

async function readAll(
  stream: ReadableStream<LanguageModelV3StreamPart>,
): Promise<LanguageModelV3StreamPart[]> {
  const out: LanguageModelV3StreamPart[] = [];
  for await (const part of stream) out.push(part);
  return out;
}

describe('BuiltinAnswerer', () => {
  it('identifies itself as a v3 language model', () => {
    const model = new BuiltinAnswerer({ sources });
    expect(model.specificationVersion).toBe('v3');
    expect(model.provider).toBe('docent');
    expect(model.modelId).toBe('builtin');
    expect(model.supportedUrls).toEqual({});
  });

  it('answers from the sources with citations of the sources it used', async () => {
    const model = new BuiltinAnswerer({ sources });
    const result = await model.doGenerate(callOptions('How do I install the CLI on macOS?'));
    const text = textOf(result.content);
    expect(text).toContain('To install the CLI on macOS, run the installer with Homebrew: [1]');
    expect(text).toContain('brew install docent');
    const cited = citedSourceIds(text);
    expect(cited).toEqual(['1']);
    for (const id of cited) expect(sources.map((s) => s.id)).toContain(id);
    // Every quoted sentence is verbatim from a source.
    for (const line of text.split('\n').filter((l) => l.includes('[1]'))) {
      for (const sentence of line.split(/ \[1\] ?/).filter((s) => s.trim().length > 0)) {
        expect(sources[0]?.text.replace(/\n/g, ' ')).toContain(sentence.trim());
      }
    }
    expect(result.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
    expect(result.usage.outputTokens.total).toBe(Math.ceil(text.length / 4));
  });

  it('reads the question from the last user message', () => {
    const model = new BuiltinAnswerer({ sources });
    const answer = model.answer('What happens when the rate limit is exceeded?');
    expect(answer.covered).toBe(true);
    expect(answer.citedIds).toEqual(['3']);
    expect(answer.text).toContain('429');
  });

  it('says so when the docs do not cover the question, without citations', async () => {
    const model = new BuiltinAnswerer({ sources });
    const result = await model.doGenerate(callOptions('What is a good recipe for sourdough bread?'));
    const text = textOf(result.content);
    expect(text.startsWith(NO_COVERAGE_MESSAGE)).toBe(true);
    // Each section by its page and its own heading: three sections of one page read apart.
    expect(text).toContain(
      '[Install the CLI › Install on macOS](https://docs.example.com/cli/install#macos)',
    );
    expect(citedSourceIds(text)).toEqual([]);
  });

  it("declines in the reader's language, and the decline counts as unanswered in each", () => {
    const asked: [string, ReplyLanguage][] = [
      ['Comment est-ce que je fais une recette de pain au levain pour la maison ?', 'french'],
      ['¿Cómo hago una receta de pan de masa madre para la casa?', 'spanish'],
      ['Como eu faço uma receita de pão de fermentação natural em casa?', 'portuguese'],
      ['Wie backe ich ein Sauerteigbrot mit dem Rezept für zu Hause?', 'german'],
      ['What is a good recipe for sourdough bread?', 'english'],
      ['怎么在家做酸面包？', 'chinese'],
      ['サワードウのパンはどうやって作りますか？', 'japanese'],
      ['사워도우 빵은 집에서 어떻게 만드나요?', 'korean'],
      ['كيف أصنع خبز العجين المخمر في المنزل؟', 'arabic'],
      ['איך אופים לחם מחמצת בבית?', 'hebrew'],
      // One Chinese word in an English question: English.
      ['What does 酸面包 mean in a bread recipe?', 'english'],
    ];
    for (const [question, language] of asked) {
      const { text, covered } = composeAnswer(question, sources);
      expect(covered).toBe(false);
      expect(
        text.startsWith(`${PHRASES[language].noCoverage}\n\n${PHRASES[language].closestPages}\n- [`),
      ).toBe(true);
      expect(declines(text)).toBe(true);
      // Cut short in its first words, it is still a decline begun.
      expect(declines(PHRASES[language].noCoverage.slice(0, 6))).toBe(true);
    }
  });

  it('says so when there are no sources at all', () => {
    expect(composeAnswer('How do I install?', [])).toEqual({
      text: NO_COVERAGE_MESSAGE,
      citedIds: [],
      covered: false,
    });
  });

  it('is deterministic', async () => {
    const question = 'How do I check the CLI version after install?';
    const a = await readAll((await new BuiltinAnswerer({ sources }).doStream(callOptions(question))).stream);
    const b = await readAll((await new BuiltinAnswerer({ sources }).doStream(callOptions(question))).stream);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('streams small text deltas that add up to the answer, then finishes', async () => {
    const model = new BuiltinAnswerer({ sources });
    const question = 'How do I install the CLI on macOS?';
    const parts = await readAll((await model.doStream(callOptions(question))).stream);
    const deltas = parts.filter((p) => p.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((p) => (p.type === 'text-delta' ? p.delta : '')).join('')).toBe(
      model.answer(question).text,
    );
    expect(parts.at(0)).toEqual({ type: 'stream-start', warnings: [] });
    expect(parts.at(-2)).toEqual({ type: 'text-end', id: expect.any(String) });
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: expect.any(Number) }, outputTokens: { total: expect.any(Number) } },
    });
  });

  it('stops streaming when aborted', async () => {
    const controller = new AbortController();
    const model = new BuiltinAnswerer({ sources });
    const { stream } = await model.doStream(
      callOptions('How do I install the CLI on macOS?', controller.signal),
    );
    const reader = stream.getReader();
    expect((await reader.read()).value?.type).toBe('stream-start');
    expect((await reader.read()).value?.type).toBe('text-start');
    const first = await reader.read();
    expect(first.value?.type).toBe('text-delta');
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });

  it('refuses to start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      new BuiltinAnswerer({ sources }).doStream(callOptions('install?', controller.signal)),
    ).rejects.toThrow();
  });

  it('uses context items to pick sentences', () => {
    const withContext = composeAnswer('What does this mean?', sources, [
      { type: 'textSelection', value: 'download past invoices from the dashboard' },
    ]);
    expect(withContext.citedIds).toEqual(['2']);
  });
});

describe('tables in the built-in answer', () => {
  const page = (text: string): RetrievedSource[] => [
    {
      id: '1',
      pageTitle: 'The chat widget',
      headings: ['Embed it in your docs'],
      url: 'https://docs.example.com/widget#embed',
      text,
      score: 10,
    },
  ];
  const attributes = [
    'attribute | default | meaning',
    '`data-domain` | required | the site domain the widget asks',
    '`data-server` | where the widget script came from | the widget server address',
  ].join('\n');

  it('does not add a row of a table to a sentence it quotes: a row says little without its header', () => {
    const answer = composeAnswer(
      'how do I embed the widget on my site',
      page(`To embed the widget on your site, add one script tag to every page.\n\n${attributes}`),
    );
    expect(answer.covered).toBe(true);
    expect(answer.text).toContain('To embed the widget on your site');
    expect(answer.text).not.toContain(' | ');
  });

  it('quotes rows together when the answer is in the table', () => {
    const answer = composeAnswer('widget data-domain data-server attribute default', page(attributes));
    expect(answer.text).toContain('`data-domain` | required');
    expect(answer.text).toContain('`data-server` | where');
  });
});

describe('a table of numbers', () => {
  const plans: RetrievedSource[] = [
    {
      id: '1',
      pageTitle: 'Plans',
      headings: ['Limits'],
      url: 'https://docs.example.com/plans#limits',
      text: [
        'The table below lists the limits per plan.',
        '',
        'plan | requests per minute | sprockets per day',
        'Free | 60 | 1,000',
        'Team | 600 | 50,000',
        'Enterprise | 6,000 | unlimited',
      ].join('\n'),
      score: 10,
    },
  ];

  it("quotes the row the question names, one row a line, in the table's order (a row of numbers is not noise)", () => {
    const answer = composeAnswer('How many requests per minute does the Team plan allow?', plans).text;
    // The header row the question's words pick leads, but is read where it is: above its rows.
    expect(answer).toContain('\n- plan | requests per minute | sprockets per day [1]\n');
    expect(answer.indexOf('- plan |')).toBeLessThan(answer.indexOf('- Team |'));
    expect(answer).toContain('\n- Team | 600 | 50,000 [1]');
    expect(answer).not.toContain('Enterprise');
  });
});

describe('numbered steps', () => {
  const pairing: RetrievedSource[] = [
    {
      id: '1',
      pageTitle: 'Installation',
      headings: ['Pair a sensor'],
      url: 'https://docs.example.com/installation#pair-a-sensor',
      text: [
        "1. Press the hub's pair button for 3 seconds until the ring blinks blue.",
        '2. Pull the battery tab out of the sensor.',
        '3. The sensor appears in the app within 30 seconds.',
        '',
        'A hub pairs with at most 64 sensors.',
      ].join('\n'),
      score: 10,
    },
  ];

  it('are quoted as one numbered list in their order, the lead step inside it', () => {
    // The first step leads: it was a paragraph above the bullets of steps 2 and 3, their numbers lost.
    const answer = composeAnswer('How do I pair a sensor?', pairing).text;
    expect(answer).toMatch(
      /^1\. Press the hub's pair button for 3 seconds until the ring blinks blue\. \[1\]\n2\. Pull the battery tab out of the sensor\. \[1\]\n3\. The sensor appears in the app within 30 seconds\. \[1\]/,
    );
  });

  /** The numbered lines of each run: Markdown shows a run as one list counting up from its first number. */
  const runs = (answer: string): number[][] =>
    answer
      .split(/\n(?!\d+\. )/)
      .map((block) => [...block.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1])))
      .filter((run) => run.length > 0);
  const countsUp = (run: number[]): boolean =>
    run.every((n, i) => i === 0 || n === (run[i - 1] as number) + 1);

  it('are bullets when their numbers would be shown as others: a list nested in a step', () => {
    const nested: RetrievedSource[] = [
      {
        ...(pairing[0] as RetrievedSource),
        text: [
          '1. Press the pair button to pair a sensor.',
          '  1. On a hub v1, hold it for 3 seconds.',
          '  2. On a hub v2, tap it twice.',
          '2. Pull the battery tab of the sensor.',
          '3. The sensor appears in the app.',
        ].join('\n'),
      },
    ];
    const answer = composeAnswer('How do I pair a sensor?', nested).text;
    // Written "1. … 1. … 2. … 2. … 3.", Markdown would show 1 to 5: the sub-steps as steps 2 and 3.
    expect(answer).toContain('- On a hub v1, hold it for 3 seconds. [1]');
    expect(runs(answer).every(countsUp)).toBe(true);
  });

  it('are bullets when the quoted steps skip one (steps 2, 3 and 5)', () => {
    const skipping: RetrievedSource[] = [
      {
        ...(pairing[0] as RetrievedSource),
        text: [
          '1. Open the app.',
          '2. The sensor pairs with the hub when its battery is in.',
          '3. Wait a moment.',
          '4. Check the light.',
          '5. A sensor battery lasts two years on a hub.',
        ].join('\n'),
      },
    ];
    const answer = composeAnswer('Which sensor pairs with the hub battery?', skipping).text;
    expect(answer).toContain('A sensor battery lasts two years on a hub. [1]');
    // "2. … 3. … 5." shows step 5 as 4.
    expect(answer).not.toMatch(/^5\. /m);
    expect(runs(answer).every(countsUp)).toBe(true);
  });

  it('keep the numbers of a list that starts past 1, and of two lists a sentence apart', () => {
    const two: RetrievedSource[] = [
      {
        ...(pairing[0] as RetrievedSource),
        text: [
          '3. Press the pair button to pair a sensor.',
          '4. Pull the battery tab of the sensor.',
          '',
          'To unpair a sensor:',
          '',
          '1. Hold the unpair button of the sensor.',
          '2. Remove the sensor from the app.',
        ].join('\n'),
      },
    ];
    const answer = composeAnswer('How do I pair a sensor or unpair a sensor?', two).text;
    expect(runs(answer)).toEqual([
      [3, 4],
      [1, 2],
    ]);
  });
});

describe('a quoted sentence that introduces a code block', () => {
  const page: RetrievedSource[] = [
    {
      id: '1',
      pageTitle: 'Docs for agents',
      headings: ['MCP server', 'Add it to an MCP client'],
      url: 'https://docs.example.com/agents#mcp',
      text: [
        'Claude Code, Cursor and other MCP clients accept this MCP server shape:',
        '',
        '```json',
        '{ "mcpServers": { "acme": { "url": "https://docs.example.com/mcp/acme" } } }',
        '```',
        '',
        'The MCP server answers searches of the docs for every MCP client.',
      ].join('\n'),
      score: 10,
    },
  ];

  it('is quoted with its code, whatever the question asks', () => {
    const answer = composeAnswer('what MCP server shape do MCP clients accept', page);
    expect(answer.text).toMatch(/accept this MCP server shape: \[1\]\n\n```json\n\{ "mcpServers"/);
  });

  it('brings no code to a sentence that does not introduce it, unless the question asks how to', () => {
    const plain: RetrievedSource[] = [
      {
        ...(page[0] as RetrievedSource),
        text: [
          'The MCP server answers searches of the docs for every MCP client.',
          '',
          '```json',
          '{ "mcpServers": { "acme": { "url": "https://docs.example.com/mcp/acme" } } }',
          '```',
        ].join('\n'),
      },
    ];
    const what = composeAnswer('what does the MCP server answer for every MCP client', plain);
    expect(what.text).toContain('The MCP server answers searches');
    expect(what.text).not.toContain('```');
    expect(composeAnswer('how do I connect an MCP client to the MCP server', plain).text).toContain(
      '```json',
    );
  });
});

describe('a quoted sentence that introduces a table', () => {
  it('is quoted with the table, its rows as a list, and a sentence that does not introduce one is not', () => {
    const page = (lead: string): RetrievedSource[] => [
      {
        id: '1',
        pageTitle: 'Docs frameworks',
        headings: ['Which frameworks'],
        url: 'https://docs.example.com/frameworks',
        // As ingestion stores a table: a row a line, its cells joined by ' | '.
        text: [
          lead,
          '',
          'Framework | Config file',
          'Docusaurus | `docusaurus.config.ts`',
          'MkDocs | `mkdocs.yml`',
        ].join('\n'),
        score: 10,
      },
    ];
    const introduced = composeAnswer(
      'does it work with docusaurus',
      page('Docent looks for the config files of docs frameworks such as Docusaurus:'),
    ).text;
    expect(introduced).toBe(
      [
        'Docent looks for the config files of docs frameworks such as Docusaurus: [1]',
        '',
        '- Framework | Config file [1]',
        '- Docusaurus | `docusaurus.config.ts` [1]',
        '- MkDocs | `mkdocs.yml` [1]',
      ].join('\n'),
    );
    const plain = composeAnswer(
      'does it work with docusaurus',
      page('Docent looks for the config files of docs frameworks such as Docusaurus.'),
    ).text;
    expect(plain).not.toContain('MkDocs');
  });
});

describe('a question that asks what something is', () => {
  const pages: RetrievedSource[] = [
    {
      id: '1',
      pageTitle: 'Docs for agents',
      headings: ['Add it to an MCP client'],
      url: 'https://docs.example.com/agents#add-it-to-an-mcp-client',
      text: 'Claude Code, Cursor and other MCP clients accept this shape.',
      score: 10,
    },
    {
      id: '2',
      pageTitle: 'Docs for agents',
      headings: ['MCP server'],
      url: 'https://docs.example.com/agents#mcp-server',
      text: 'Each site has an MCP server. MCP, the Model Context Protocol, is how agents and editors reach tools and data.',
      score: 8,
    },
  ];

  it('quotes the sentence that defines it, not the first that uses the name', () => {
    expect(composeAnswer('what is MCP?', pages).text).toMatch(/^MCP, the Model Context Protocol, is how/);
    // Any other question about MCP keeps the retrieval's order.
    expect(composeAnswer('which MCP clients', pages).text).toMatch(/^Claude Code, Cursor/);
  });

  it('recognises definitions by the name first, an optional aside, then is/are/means', () => {
    const mcp = definitionOf("What's MCP");
    expect(mcp?.test('MCP, the Model Context Protocol, is how agents reach tools.')).toBe(true);
    expect(mcp?.test('MCP (Model Context Protocol) means one server per site.')).toBe(true);
    expect(mcp?.test('Claude Code and other MCP clients accept this shape.')).toBe(false);
    expect(mcp?.test('MCP clients are editors.')).toBe(false);
    expect(definitionOf('what is a thread key?')?.test('A thread key is a secret.')).toBe(true);
    expect(definitionOf('what is llms.txt')?.test('`llms.txt` is a file.')).toBe(true);
    // Questions about something else than what a thing is.
    expect(definitionOf('what is the difference between v1 and v2')).toBeNull();
    expect(definitionOf('what is the best way to deploy docent behind nginx')).toBeNull();
    expect(definitionOf('how do I use MCP')).toBeNull();
  });
});

describe('the built-in answerer with the search coverage of its sources', () => {
  /** The sources as Docent's search returns them: the strongest chunk has `best` of the question. */
  const searched = (best: number): RetrievedSource[] =>
    sources.map((source, i) => ({ ...source, coverage: i === 0 ? best : best / 3 }));

  it('declines on weak retrieval, the decision a real model is told about', () => {
    const question = 'How do I install the CLI on macOS?';
    expect(composeAnswer(question, searched(MIN_RETRIEVAL_STRENGTH)).covered).toBe(true);
    const weak = composeAnswer(question, searched(MIN_RETRIEVAL_STRENGTH - 0.01));
    expect(weak.covered).toBe(false);
    expect(weak.text.startsWith(NO_COVERAGE_MESSAGE)).toBe(true);
  });

  it('declines a question naming something no source has, and matches a name with a typo', () => {
    const strength = 0.46;
    expect(composeAnswer('Can I install the CLI with Homebrew?', searched(strength)).citedIds).toEqual(['1']);
    expect(composeAnswer('Can I install the CLI with Homebrw?', searched(strength)).citedIds).toEqual(['1']);
    expect(composeAnswer('Can I install the CLI with Chocolatey?', searched(strength)).covered).toBe(false);
  });
});

describe('helpers', () => {
  it('splitDeltas keeps every byte', () => {
    const text = 'One two three four five six.\n\n- seven [1]\n```\ncode\n```';
    const deltas = splitDeltas(text);
    expect(deltas.join('')).toBe(text);
    expect(deltas.length).toBeGreaterThan(1);
  });

  it('citedSourceIds finds numbered citations, not links or code', () => {
    expect(citedSourceIds('A [2]. B [1][3] and [2, 4]. [text](url) `arr[9]` [5](x)')).toEqual([
      '2',
      '1',
      '3',
      '4',
    ]);
    expect(citedSourceIds('A [2] B [7]', ['1', '2'])).toEqual(['2']);
  });
});

describe('follow-up questions', () => {
  const deploy: RetrievedSource = {
    id: '1',
    pageTitle: 'Deployment',
    headings: ['The container image'],
    url: 'https://docs.example.com/deploy#image',
    text: 'The image runs Docent as an unprivileged user and installs nothing at start.\n\nTo deploy with Docker, build the image and run it with a volume for its data.',
    score: 3,
  };
  const install: RetrievedSource = {
    id: '2',
    pageTitle: 'Install Docent',
    headings: [],
    url: 'https://docs.example.com/install',
    text: 'To install Docent, run npm install, then npm start. Docent needs Node 20.',
    score: 5,
  };
  // As Docent's search returns them for the follow-up's query (the two questions): with `coverage`.
  const limits: RetrievedSource = { ...(sources[2] as RetrievedSource), id: '3', coverage: 0.8 };
  const installCovering: RetrievedSource = { ...install, coverage: 0.2 };

  it('borrow the words of the previous question when their own are only everyday words', () => {
    const question = 'what happens when I go over it';
    expect(composeAnswer(question, [installCovering, limits]).covered).toBe(false);
    const answer = composeAnswer(question, [installCovering, limits], [], "what's the rate limit?");
    expect(answer.covered, answer.text).toBe(true);
    expect(answer.citedIds).toEqual(['3']);
    expect(answer.text).toContain('429');
  });

  it("are answered by their own subject, not the previous question's", () => {
    const answer = composeAnswer('What about Docker?', [install, deploy], [], 'How do I install Docent?');
    expect(answer.citedIds).toEqual(['1']);
    expect(answer.text.startsWith('To deploy with Docker, build the image')).toBe(true);
    // The borrowed words pick no sentence: "Docent" would lift the second one over the first.
    const both: RetrievedSource = {
      ...deploy,
      text: 'To deploy with Docker, build the image and run it with a volume.\n\nNode runs as PID 1, so docker stop sends SIGTERM straight to Docent.',
    };
    const lead = composeAnswer('What about Docker?', [both], [], 'How do I install Docent?');
    expect(lead.text.startsWith('To deploy with Docker'), lead.text).toBe(true);
  });

  it('are declined when no source has any of their own words', () => {
    // Strong retrieval for the borrowed words alone would carry the answer without this rule.
    const strong: RetrievedSource = { ...install, coverage: 0.8 };
    const answer = composeAnswer('and on windows?', [strong, deploy], [], 'How do I install Docent?');
    expect(answer.covered, answer.text).toBe(false);
    // Nor by an everyday word of their own ("run") on a page without their subject.
    const run = composeAnswer('can I run it on windows?', [strong], [], 'How do I install Docent?');
    expect(run.covered, run.text).toBe(false);
  });

  it('are not defined by a sentence that starts with their pronoun', () => {
    const free: RetrievedSource = {
      id: '1',
      pageTitle: 'Pricing',
      headings: [],
      url: 'https://docs.example.com/pricing',
      text: 'Rate limits apply per organization.\n\nIt is free for open source projects, at a rate of 100 answers a day.',
      score: 1,
      coverage: 0.9,
    };
    const answer = composeAnswer('what is it?', [free], [], 'how do I raise the rate limit?');
    expect(answer.text.startsWith('It is free'), answer.text).toBe(false);
  });

  it('borrow nothing for an empty message', () => {
    expect(composeAnswer('', [limits], [], borrowedQuestion('', "what's the rate limit?")).covered).toBe(
      false,
    );
  });

  it('find the previous question in the prompt the model is given', async () => {
    const model = new BuiltinAnswerer({ sources: [installCovering, limits] });
    const result = await model.doGenerate({
      prompt: [
        { role: 'system', content: 'Answer from the docs.' },
        { role: 'user', content: [{ type: 'text', text: "what's the rate limit?" }] },
        {
          role: 'assistant',
          content: [{ type: 'text', text: 'Each organization may send 10,000 requests per hour. [3]' }],
        },
        { role: 'user', content: [{ type: 'text', text: 'what happens when I go over it' }] },
      ],
    });
    expect(textOf(result.content)).toContain('429');
  });

  it('quote a sentence that spells out a short form the question uses', () => {
    const models: RetrievedSource = {
      id: '1',
      pageTitle: 'Language models',
      headings: ['Choose a model'],
      url: 'https://docs.example.com/models',
      text: 'The DOCENT_MODEL environment variable sets the model every site answers with.',
      score: 2,
    };
    const answer = composeAnswer('which env var sets the model', [models, install]);
    expect(answer.covered, answer.text).toBe(true);
    expect(answer.citedIds).toEqual(['1']);
  });
});

describe("a section's first sentence", () => {
  const limits: RetrievedSource = {
    id: '1',
    pageTitle: 'Limits',
    headings: ['Rate limits'],
    url: 'https://docs.example.com/limits#rate-limits',
    text: 'By default an organization can ask 10,000 questions per hour, and each IP address 10,000 per day.\n\nA 429 error means a rate limit was reached: wait, then retry.',
    score: 3,
    coverage: 1,
  };

  it('answers for the section its headings name, in words of its own', () => {
    const answer = composeAnswer('whats the default rate limit', [limits]);
    expect(answer.text.startsWith('By default an organization can ask 10,000 questions per hour')).toBe(true);
  });

  it('is not preferred under a heading that does not name the question, nor without a word of it', () => {
    const other = { ...limits, headings: ['Quotas'], pageTitle: 'Plans' };
    expect(composeAnswer('whats the default rate limit', [other]).text.startsWith('A 429 error')).toBe(true);
    // "default" is in no heading: the headings hold only part of the question.
    const partly = {
      ...limits,
      text: 'Each organization can ask 10,000 questions per hour.\n\nA 429 error means a rate limit was reached: wait, then retry.',
    };
    expect(composeAnswer('whats the default rate limit', [partly]).text.startsWith('A 429 error')).toBe(true);
  });

  it('answers when the headings hold the whole question, though the section repeats none of its words', () => {
    // An FAQ: the question is the heading, the answer below it in words of its own (the framework probe
    // found "Why is the sky blue?" declined under its own heading).
    const faq: RetrievedSource = {
      id: '1',
      pageTitle: 'FAQ',
      headings: ['Why is the sky blue?'],
      url: 'https://docs.example.com/faq#why-is-the-sky-blue',
      text: 'Rayleigh scattering sends short wavelengths in every direction. Sunsets look red for that reason.',
      score: 3,
      coverage: 1,
    };
    const answer = composeAnswer('why is the sky blue', [faq]);
    expect(answer.covered).toBe(true);
    expect(answer.text.startsWith('Rayleigh scattering sends short wavelengths')).toBe(true);
    expect(
      composeAnswer("what's the rate limit", [limits]).text.startsWith('By default an organization'),
    ).toBe(true);
  });
});

describe('a question that names the version its sources were searched in', () => {
  const tools = (searchedVersion?: string | null): RetrievedSource => ({
    id: '1',
    pageTitle: 'Tools',
    headings: ['Tool names'],
    url: 'https://docs.example.com/2025-06-18/tools#names',
    text: 'The length of tool names is at most 128 characters. Names are case-sensitive.',
    score: 4,
    coverage: 0.7,
    ...(searchedVersion === undefined ? {} : { searchedVersion }),
  });
  const sampling = (searchedVersion: string | null): RetrievedSource => ({
    id: '2',
    pageTitle: 'Sampling',
    headings: [],
    url: 'https://docs.example.com/sampling',
    text: 'Sampling lets a server ask the client for a completion.',
    score: 1,
    coverage: 0.1,
    searchedVersion,
  });
  const question = 'max length of tool names in 2025-06-18?';

  it("is answered without the name: it was the search's filter, not words the pages must say", () => {
    const answer = composeAnswer(question, [tools('Version 2025-06-18')]);
    expect(answer.covered).toBe(true);
    expect(answer.citedIds).toEqual(['1']);
  });

  it('needs the name said when the search ran in every version or in another one', () => {
    expect(composeAnswer(question, [tools()]).covered).toBe(false);
    expect(composeAnswer(question, [tools(null)]).covered).toBe(false);
    expect(composeAnswer(question, [tools('Version 2026-07-28')]).covered).toBe(false);
    // Sources of two searches: the name counts as asked.
    expect(composeAnswer(question, [tools(null), sampling('Version 2025-06-18')]).covered).toBe(false);
  });
});

describe('a sentence scraped twice, once with a heading glued on', () => {
  const sources: RetrievedSource[] = [
    {
      id: '1',
      pageTitle: 'Migrating from Text Completions',
      headings: ['Role names'],
      url: 'https://docs.example.com/migrating#role-names',
      text: [
        'The Text Completions API expects alternating Human and Assistant turns, but the Messages API expects user and assistant roles.',
        '',
        'Role namesThe Text Completions API expects alternating Human and Assistant turns, but the Messages API expects user and assistant roles.',
        '',
        'You may see documentation referring to either human or user turns.',
      ].join('\n'),
      score: 5,
    },
  ];

  it('is quoted once: the second says nothing new', () => {
    const answer = composeAnswer('Which turns does the Text Completions API expect?', sources);
    expect(answer.covered).toBe(true);
    expect(answer.text.match(/expects alternating/g)).toHaveLength(1);
  });

  const page = (...sentences: string[]): RetrievedSource[] => [
    {
      id: '1',
      pageTitle: 'SDK',
      headings: [],
      url: 'https://docs.example.com/sdk',
      text: sentences.join(' '),
      score: 5,
    },
  ];
  const quoted = (answer: { text: string }, words: string) => answer.text.includes(words);

  it('keeps sentences that differ inside, or add words of their own', () => {
    const versions = composeAnswer(
      'Does the SDK support streaming responses from the messages endpoint?',
      page(
        'Version 2 of the SDK supports streaming responses from the messages endpoint in Python.',
        'Version 3 of the SDK does not support streaming responses from the messages endpoint in Python.',
      ),
    );
    expect(quoted(versions, 'Version 2 of the SDK')).toBe(true);
    expect(quoted(versions, 'Version 3 of the SDK does not support')).toBe(true);
    const prefixed = composeAnswer(
      'How many times does the SDK retry failed requests to the messages endpoint?',
      page(
        'The SDK retries failed requests to the messages endpoint three times.',
        'In version 3, the SDK retries failed requests to the messages endpoint three times.',
      ),
    );
    expect(quoted(prefixed, 'In version 3, the SDK retries')).toBe(true);
  });
});

describe('Chinese and Japanese docs (no spaces between words)', () => {
  const zh: RetrievedSource[] = [
    {
      id: '1',
      pageTitle: '快速入门',
      headings: ['创建访问密钥'],
      url: 'https://docs.example.cn/quickstart#创建访问密钥',
      text: '打开控制台，点击“创建密钥”。密钥只显示一次，请立即复制并妥善保存！如果密钥泄露，请马上撤销它。',
      score: 9,
      coverage: 1,
    },
    {
      id: '2',
      pageTitle: '快速入门',
      headings: [],
      url: 'https://docs.example.cn/quickstart',
      text: '本指南介绍如何在几分钟内安装命令行工具。你需要先安装 Node.js 20 或更高版本。',
      score: 5,
      coverage: 0.6,
    },
  ];

  it('answers a Chinese question from the sentences that have its words, each ending in 。 or ！', () => {
    const answer = composeAnswer('如何创建密钥？', zh);
    expect(answer.covered).toBe(true);
    expect(answer.text).toContain('打开控制台，点击“创建密钥”。 [1]');
    expect(answer.text).toContain('密钥只显示一次，请立即复制并妥善保存！ [1]');
    // Not the whole paragraph as one "sentence", nor the page that only shares "如何" (how).
    expect(answer.text).not.toContain('本指南');
  });

  it('answers a Japanese question', () => {
    const answer = composeAnswer('APIキーの作り方は？', [
      {
        id: '1',
        pageTitle: 'はじめに',
        headings: ['APIキーの作成'],
        url: 'https://docs.example.jp/start#apiキーの作成',
        text: 'ダッシュボードを開き、「キーを作成」をクリックします。キーは一度だけ表示されるので、すぐにコピーしてください！',
        score: 9,
        coverage: 1,
      },
    ]);
    expect(answer.covered).toBe(true);
    expect(answer.text).toContain('ダッシュボードを開き、「キーを作成」をクリックします。 [1]');
  });
});

describe('sentences of scripts without capitals', () => {
  const one = (pageTitle: string, text: string): RetrievedSource[] => [
    { id: '1', pageTitle, headings: [], url: 'https://docs.example.com/p', text, score: 9, coverage: 1 },
  ];

  it('quotes an Arabic or Hebrew sentence alone, not the paragraph it ends', () => {
    const ar = composeAnswer(
      'متى يعاد تعيين الرصيد الشهري؟',
      one('الفوترة', 'كل طلب يستهلك رصيداً. يُعاد تعيين الرصيد الشهري في اليوم الأول من كل شهر.'),
    );
    expect(ar.text.startsWith('يُعاد تعيين الرصيد الشهري في اليوم الأول من كل شهر. [1]')).toBe(true);
    const he = composeAnswer(
      'מתי המכסה החודשית מתאפסת?',
      one('חיוב', 'כל בקשה צורכת קרדיטים. המכסה החודשית מתאפסת ביום הראשון של כל חודש.'),
    );
    expect(he.text.startsWith('המכסה החודשית מתאפסת ביום הראשון של כל חודש. [1]')).toBe(true);
  });

  it('quotes a Chinese sentence that ends in inline code', () => {
    const answer = composeAnswer(
      '配置文件在哪里？',
      one('配置选项', '配置文件位于项目根目录下的 `config.toml`。修改后需要重启服务。'),
    );
    expect(answer.covered).toBe(true);
    expect(answer.text).toContain('配置文件位于项目根目录下的 `config.toml`。 [1]');
  });
});
