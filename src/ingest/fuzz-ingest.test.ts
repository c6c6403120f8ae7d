/**
 * Fuzzing ingestion (fast-check): small generated docs folders (Markdown and MDX with nesting, JSX-like
 * tags, odd front matter, snippet imports; docs.json/mint.json with random navigation shapes, `$ref`
 * files and hostile labels) ingested with `ingestSite` on SQLite.
 *
 * The only property: ingestion resolves (success, with warnings) or rejects with the job recorded as
 * failed; never a TypeError-like crash, an unhandled rejection, or a run past INGEST_TIMEOUT_MS.
 * FUZZ_SEED replays a run (see README, "Fuzzing").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import {
  fuzzParameters,
  fuzzSeed,
  hostileString,
  PROTOTYPE_NAMES,
  withShrinkBudget,
} from '../testing/fuzz-arbitraries.ts';
import { ingestSite } from './ingest-site.ts';
import { listIngestionJobs } from './jobs.ts';

/** One tiny folder taking longer than this counts as a hang. */
const INGEST_TIMEOUT_MS = 15_000;
/** A hang is reported after INGEST_TIMEOUT_MS per case; shrinking one may take several. */
const TEST_TIMEOUT_MS = 300_000;
const RUNS = 40;

// ---------------------------------------------------------------------------------------------------
// Docs folders

type DocsFolder = Record<string, string>;

const PAGE_NAMES = [
  'index',
  'intro',
  'guide/setup',
  'guide/deep/nested/page',
  'a b',
  'ünïcode',
  '.hidden',
  'snippets/note',
  ...PROTOTYPE_NAMES,
];
const pageName = fc.constantFrom(...PAGE_NAMES);
const pageFile = fc
  .tuple(pageName, fc.constantFrom('.mdx', '.md', '.mdx', '.mdx', '.MDX', '.txt'))
  .map(([n, e]) => n + e);
const label = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('v1', 'v2', 'en', 'fr', 'Guides') },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: hostileString },
);
const words = fc
  .array(
    fc.constantFrom('rotate', 'keys', 'billing', 'the', 'API', 'widget', 'install', '`code`', '**bold**'),
    {
      minLength: 1,
      maxLength: 12,
    },
  )
  .map((w) => w.join(' '));
const text = fc.oneof({ weight: 3, arbitrary: words }, { weight: 1, arbitrary: hostileString });

const FRONT_MATTERS = [
  '',
  '---\ntitle: Plain\ndescription: A page\n---\n',
  '---\n---\n',
  '---\ntitle: [unclosed\n---\n',
  '---\n: : :\n---\n',
  '---\ntitle: x\n',
  '---\na: &a [1, 2]\nb: [*a, *a, *a]\nc: [*b, *b, *b]\n---\n',
  '---\ntitle: !!js/function "function () {}"\n---\n',
  '---\n__proto__: {polluted: true}\nconstructor: {prototype: {polluted: true}}\ntitle: proto\n---\n',
  '---\ntitle: 123\nhidden: "yes"\nnoindex: 1\nsearchable: null\n---\n',
  '---\ntitle:\n  - a\n  - b\nsidebarTitle: {x: 1}\n---\n',
  '---\ntitle: one\ntitle: two\n---\n',
  '---\n\ttitle: tab\n---\n',
  '---\ntitle: "\\u0000nul"\n---\n',
  '---\nhidden: true\n---\n',
  '+++\ntitle = "toml"\n+++\n',
];
const frontMatter = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FRONT_MATTERS) },
  { weight: 1, arbitrary: fc.tuple(label, text).map(([k, v]) => `---\n${k}: ${v}\n---\n`) },
);

/** Nested `depth` deep: lists, block quotes, JSX elements, emphasis. */
const nested = fc
  .tuple(
    fc.constantFrom('list', 'quote', 'jsx', 'jsx-unclosed', 'emphasis', 'brackets'),
    fc.constantFrom(2, 10, 100, 1_000, 3_000),
    words,
  )
  .map(([kind, depth, w]) => {
    switch (kind) {
      case 'list':
        // Indentation grows with depth: kept shallower so a page stays a few hundred KB at most.
        return Array.from({ length: Math.min(depth, 300) }, (_, i) => `${'  '.repeat(i)}- ${w}`).join('\n');
      case 'quote':
        return `${'> '.repeat(depth)}${w}`;
      case 'jsx':
        return `${'<Card>'.repeat(depth)}${w}${'</Card>'.repeat(depth)}`;
      case 'jsx-unclosed':
        return `${'<Step title="x">\n'.repeat(depth)}${w}`;
      case 'emphasis':
        return `${'*a* _b_ '.repeat(depth)}${w}`;
      default:
        return `${'['.repeat(depth)}${w}${']('.repeat(depth)}`;
    }
  });

const block = fc.oneof(
  { weight: 4, arbitrary: text },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 7 }), text).map(([n, t]) => `${'#'.repeat(n)} ${t}`),
  },
  { weight: 2, arbitrary: nested },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '<Step title="Install">Run the installer.</Step>',
      '<ParamField path="id" type="string">The id</ParamField>',
      '<Card title={1+}>broken expression</Card>',
      '<Foo {...props} />',
      '<Tabs><Tab title="a">',
      '</Tabs>',
      '{1 +}',
      '{/* comment */}',
      'export const a = {b: 1};',
      "import Note from '/snippets/note.mdx';\n\n<Note />",
      "import Self from './index.mdx';\n\n<Self />",
      "import Gone from '/snippets/missing.mdx';",
      "import Outside from '../../etc/passwd';",
      "import { constructor } from '/snippets/note.mdx';",
      '<!-- an HTML comment -->',
      '```js\nconst unterminated = true;',
      '```\ncode\n```',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      '<script>alert(1)</script>',
      '<__proto__ constructor="x" />',
      '$$\\frac{1}{0}$$',
      '[link](javascript:alert(1)) ![img](data:x)',
      '\u0000\ud800\ufeff',
    ),
  },
);

const page = fc
  .tuple(frontMatter, fc.array(block, { minLength: 0, maxLength: 6 }))
  .map(([fm, blocks]) => `${fm}\n${blocks.join('\n\n')}\n`);

/** Page references as a navigation lists them: existing pages, missing ones, and odd entries. */
const pageRef: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: pageName },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '/index',
      'index.mdx',
      'missing',
      '../outside',
      '/etc/passwd',
      '',
      'https://example.com',
      'GET /users',
      'guide/',
      'snippets/note',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(1, null, true, [], {}, { page: 'index' }) },
  { weight: 1, arbitrary: hostileString },
);

const LABEL_KEYS = ['group', 'tab', 'anchor', 'dropdown', 'product', 'version', 'language', 'item'] as const;
const CHILD_KEYS = ['pages', 'groups', 'tabs', 'anchors', 'dropdowns', 'products', 'versions', 'languages'];

const navNode: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    pageRef,
    fc
      .tuple(
        fc.constantFrom(...LABEL_KEYS),
        label,
        fc.constantFrom(...CHILD_KEYS),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.record({ hidden: fc.boolean(), searchable: fc.boolean() }, { requiredKeys: [] }),
      )
      .map(([labelKey, value, childKey, children, flags]) => ({
        [labelKey]: value,
        [childKey]: children,
        ...flags,
      })),
    fc.constantFrom(
      { $ref: 'nav.json' },
      { $ref: 'docs.json' },
      { $ref: '../x.json' },
      { $ref: 'missing.json' },
    ),
  ),
})).node;

const navigation = fc.oneof(
  fc.array(navNode, { maxLength: 4 }).map((pages) => ({ pages })),
  fc.array(navNode, { maxLength: 4 }).map((groups) => ({ groups })),
  fc
    .tuple(fc.constantFrom(...CHILD_KEYS), fc.array(navNode, { maxLength: 4 }))
    .map(([key, items]) => ({ [key]: items })),
  navNode,
  fc.constantFrom({ $ref: 'nav.json' }, null, 'pages', 7),
);

const docsJson = fc.record(
  {
    name: text,
    navigation,
    versions: fc.array(label, { maxLength: 2 }),
    seo: fc.constantFrom({ indexing: 'all' }, { indexing: 7 }, null),
  },
  { requiredKeys: ['navigation'] },
);

const mintJson = fc.record({
  name: text,
  navigation: fc.array(
    fc.record(
      { group: label, pages: fc.array(pageRef, { maxLength: 3 }), version: label },
      { requiredKeys: ['group', 'pages'] },
    ),
    { maxLength: 3 },
  ),
  versions: fc.array(label, { maxLength: 2 }),
});

type Config =
  | { kind: 'none' }
  | { kind: 'text'; file: string; text: string }
  | { kind: 'docs.json'; config: Record<string, unknown>; listPages: boolean; language: string }
  | { kind: 'mint.json'; config: Record<string, unknown> };

const config: fc.Arbitrary<Config> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 6,
    // Half the time the navigation also lists every page written, under a generated language label,
    // so the pages themselves are parsed and not only skipped as unlisted.
    arbitrary: fc
      .tuple(docsJson, fc.boolean(), label)
      .map(([c, listPages, language]): Config => ({ kind: 'docs.json', config: c, listPages, language })),
  },
  { weight: 1, arbitrary: mintJson.map((c): Config => ({ kind: 'mint.json', config: c })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('docs.json', 'mint.json'),
        fc.constantFrom(
          '',
          '{',
          'null',
          '[]',
          '{"navigation":',
          '{"__proto__":{"navigation":[]}}',
          '\ufeff{}',
        ),
      )
      .map(([file, t]): Config => ({ kind: 'text', file, text: t })),
  },
);

const docsFolder: fc.Arbitrary<DocsFolder> = fc
  .record(
    {
      pages: fc.array(fc.tuple(pageFile, page), { minLength: 1, maxLength: 4 }),
      config,
      nav: fc.option(navigation.map((n) => JSON.stringify(n))),
      snippet: fc.option(page),
    },
    { requiredKeys: ['pages', 'config'] },
  )
  .map(({ pages, config, nav, snippet }) => {
    const files: DocsFolder = {};
    for (const [name, content] of pages) files[name] = content;
    if (config.kind === 'text') files[config.file] = config.text;
    else if (config.kind === 'mint.json') files['mint.json'] = JSON.stringify(config.config);
    else if (config.kind === 'docs.json') {
      let navigation = config.config.navigation;
      if (config.listPages) {
        const listed = {
          language: config.language,
          groups: [{ group: 'All', pages: pages.map(([n]) => n) }],
        };
        navigation = { languages: [listed, { language: 'extra', pages: [navigation] }] };
      }
      files['docs.json'] = JSON.stringify({ ...config.config, navigation });
    }
    if (nav) files['nav.json'] = nav;
    if (snippet) files['snippets/note.mdx'] = snippet;
    return files;
  });

function writeFolder(files: DocsFolder): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-fuzz-docs-'));
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return dir;
}

function describeFolder(files: DocsFolder): string {
  return Object.entries(files)
    .map(([name, content]) => {
      const collapsed = content.replace(
        /(.{1,8}?)\1{15,}/gs,
        (run, unit: string) => `‹${unit}×${run.length / unit.length}›`,
      );
      return `--- ${name} (${content.length} chars)\n${collapsed.slice(0, 600)}`;
    })
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------

/** Errors that are bugs, never a verdict on the input. */
const CRASHES = [TypeError, RangeError, ReferenceError, SyntaxError];

describe('fuzzed docs folders on sqlite', () => {
  let database: TestDatabase;
  let siteId: string;

  beforeAll(async () => {
    console.info(`fuzz seed ${fuzzSeed} (FUZZ_SEED=${fuzzSeed} replays this run)`);
    database = await createTestDatabase('sqlite');
    const organization = await createOrganization(database.storage, { name: 'fuzz' });
    siteId = (await createSite(database.storage, { organizationId: organization.id, domain: 'fuzz' })).id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** Ingests one folder and fails unless it succeeded, or failed with its job recorded as failed. */
  async function expectIngested(files: DocsFolder, unhandled: unknown[]): Promise<void> {
    // A rejection left by an earlier case that timed out belongs to that case.
    unhandled.length = 0;
    const dir = writeFolder(files);
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), INGEST_TIMEOUT_MS);
      });
      const outcome = await Promise.race([
        ingestSite(database.storage, siteId, dir).then(
          (result) => ({ result, failure: undefined }),
          (failure: unknown) => ({ result: undefined, failure }),
        ),
        timeout,
      ]);
      // Lets a rejection the run left behind surface before the outcome is judged.
      await new Promise((resolve) => setImmediate(resolve));
      const rejection = unhandled.length > 0 ? `; unhandled rejection: ${String(unhandled[0])}` : '';
      if (outcome === 'timeout')
        throw new Error(`ingestion still running after ${INGEST_TIMEOUT_MS} ms${rejection}`);
      if (rejection) throw new Error(`ingestion left an unhandled rejection${rejection}`);
      const [job] = await listIngestionJobs(database.storage, siteId, 1);
      if (outcome.result) {
        expect(job?.status).toBe('success');
        return;
      }
      const { failure } = outcome;
      if (CRASHES.some((type) => failure instanceof type)) {
        throw new Error(`ingestion crashed: ${(failure as Error).stack}`);
      }
      expect(job?.status, `ingestion failed without a failed job: ${String(failure)}`).toBe('failure');
      expect(job?.error).toBeTruthy();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${message}\nfolder:\n${describeFolder(files)}`, { cause: error });
    } finally {
      clearTimeout(timer);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it(
    'ingests each folder or fails it with a recorded job; never crashes or hangs',
    async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        await fc.assert(
          fc.asyncProperty(
            docsFolder,
            withShrinkBudget((files: DocsFolder) => expectIngested(files, unhandled)),
          ),
          fuzzParameters(RUNS),
        );
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
