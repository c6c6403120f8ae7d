import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readEvalSet } from '../search/eval-set.ts';
import { corpusDir, evalSetDir, repoRoot } from '../testing/paths.ts';
import { loadDocsFolder } from './load-docs-folder.ts';
import type { LoadedSite, ParsedPage } from './types.ts';

/**
 * What is indexed, not how fast: on a loaded CI machine (browser suites running beside) a 726 KB schema
 * page of mcp-docs once passed the production 10 s parse budget and was skipped. The budget now counts
 * the worker thread's CPU time, not the time that passed (about 5 s of it for that page), but a slower
 * machine may still need more. The budget is tested in page-loader-pool-limits.test.ts.
 */
const CORPUS_LOAD = { limits: { maxPageParseMs: 120_000 } };

/**
 * Independent, deliberately naive count of what the loader should index: every string under a `pages`
 * key (and every group `root`), following `$ref`, normalised, that exists on disk, minus pages whose
 * front matter opts out of search.
 */
const expectedNavPages = (root: string): string[] => {
  const config = existsSync(path.join(root, 'docs.json')) ? 'docs.json' : 'mint.json';
  const found: string[] = [];
  const visit = (file: string, seen: string[]): void => {
    const json: unknown = JSON.parse(readFileSync(path.join(root, file), 'utf8'));
    const walk = (node: unknown, key: string | null): void => {
      if (Array.isArray(node)) for (const item of node) walk(item, key);
      else if (typeof node === 'string' && key === 'pages') found.push(node);
      else if (node && typeof node === 'object') {
        const record = node as Record<string, unknown>;
        if (typeof record.$ref === 'string') {
          const next = path.posix.normalize(path.posix.join(path.posix.dirname(file), record.$ref));
          if (!seen.includes(next)) visit(next, [...seen, next]);
          return;
        }
        if (typeof record.root === 'string') found.push(record.root);
        for (const [k, v] of Object.entries(record)) walk(v, k);
      }
    };
    walk(file === config ? (json as Record<string, unknown>).navigation : json, null);
  };
  visit(config, [config]);
  const ids = [
    ...new Set(
      found.map((p) =>
        p
          .trim()
          .replace(/^\/+/, '')
          .replace(/\.mdx?$/, ''),
      ),
    ),
  ];
  return ids.filter((id) => {
    const file = [`${id}.mdx`, `${id}.md`].map((f) => path.join(root, f)).find((f) => existsSync(f));
    if (!file) return false;
    const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
    return !/^(hidden|noindex):\s*true\s*$|^searchable:\s*false\s*$/m.test(front);
  });
};

const OLLAMA_OPERATION_PAGES = [
  'api/generate',
  'api/chat',
  'api/embed',
  'api/tags',
  'api/ps',
  'api-reference/show-model-details',
  'api/create',
  'api/copy',
  'api/pull',
  'api/push',
  'api/delete',
  'api-reference/get-version',
];

/**
 * Docent's own eval sets over this corpus (eval/<corpus>/): every relevant page is a page the loader
 * indexes, carrying the labels of the question's filter (an unlabelled page matches any filter).
 */
const evalSetLabelsHold = async (site: LoadedSite, corpus: string): Promise<void> => {
  const set = await readEvalSet(path.join(repoRoot, 'eval', corpus));
  expect(set.docsDir).toBe(corpusDir(corpus));
  const byId = new Map(site.pages.map((p) => [p.path, p]));
  const problems: string[] = [];
  const has = (labels: string[], wanted: string | undefined): boolean =>
    wanted === undefined || labels.length === 0 || labels.includes(wanted);
  for (const q of set.questions) {
    for (const id of q.relevant) {
      const p = byId.get(id);
      if (!p) problems.push(`${q.id}: ${id} is not a page`);
      else if (!has(p.versions, q.filter?.version) || !has(p.languages, q.filter?.language))
        problems.push(`${q.id}: ${id} lacks the filter's labels`);
    }
  }
  expect(problems).toEqual([]);
  expect(set.questions.filter((q) => q.relevant.length > 0)).toHaveLength(150);
  expect(set.questions.filter((q) => q.relevant.length === 0)).toHaveLength(100);
};

const page = (site: LoadedSite, id: string): ParsedPage => {
  const found = site.pages.find((p) => p.path === id);
  if (!found) throw new Error(`page ${id} not loaded`);
  return found;
};
const allText = (p: ParsedPage): string => p.chunks.map((c) => c.text).join('\n\n');

describe('ollama', () => {
  let site: LoadedSite;
  beforeAll(async () => {
    site = await loadDocsFolder(corpusDir('ollama'), CORPUS_LOAD);
  });

  it('labels every question of eval/ollama with pages the loader indexes', () =>
    evalSetLabelsHold(site, 'ollama'));

  it('indexes exactly the navigation pages that exist, and a reference page per OpenAPI entry', () => {
    const expected = expectedNavPages(corpusDir('ollama'));
    expect(expected).toHaveLength(54);
    const markdown = site.pages.filter((p) => !OLLAMA_OPERATION_PAGES.includes(p.path));
    expect(markdown.map((p) => p.path).sort()).toEqual([...expected].sort());
    expect(site.pages).toHaveLength(54 + 12);
    expect(site.navigation).toEqual({ kind: 'docs.json', versions: [], languages: [], name: 'Ollama' });
  });

  it('turns the 12 "METHOD /path" entries into reference pages at their place, named as the hosted docs name them', () => {
    expect(site.warnings).toEqual([]);
    const endpoints = site.pages.filter((p) => p.navGroup === 'Endpoints');
    // `x-mint.href` names ten of them; the other two take `api-reference/<summary>`, as Mintlify does.
    expect(endpoints.map((p) => p.path)).toEqual(OLLAMA_OPERATION_PAGES);
    const orders = endpoints.map((p) => p.navOrder as number);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(Math.min(...orders)).toBeGreaterThan(page(site, 'api/anthropic-compatibility').navOrder as number);
    const generate = page(site, 'api/generate');
    expect(generate.title).toBe('Generate a response');
    expect(generate.description).toBe('Generates a response for the provided prompt');
    expect(allText(generate)).toContain('`POST /api/generate`');
    const body = generate.chunks.find((c) => c.headings[0] === 'Request body (application/json)');
    expect(body?.text).toContain('- `model` (string, required): Model name');
    // A `$ref`'d schema (ModelOptions) is resolved and its fields named by their path.
    expect(body?.text).toContain('- `options.temperature` (number (float)): Controls randomness');
    const response = generate.chunks.find((c) => c.headings[0] === 'Response 200');
    expect(response?.text).toContain('`logprobs[].top_logprobs[].token` (string)');
    expect(allText(page(site, 'api/delete'))).toContain('`DELETE /api/delete`');
  });

  it('keeps navigation order and chunks at headings with anchors', () => {
    expect(site.pages.slice(0, 3).map((p) => p.path)).toEqual(['index', 'quickstart', 'cloud']);
    const windows = page(site, 'windows');
    const chunk = windows.chunks.find((c) => c.anchor === 'changing-install-location');
    expect(chunk?.headings).toEqual(['Filesystem Requirements', 'Changing Install Location']);
    expect(chunk?.text).toContain('```powershell\nOllamaSetup.exe');
  });
});

describe('mintlify-docs', () => {
  let site: LoadedSite;
  beforeAll(async () => {
    site = await loadDocsFolder(corpusDir('mintlify-docs'), CORPUS_LOAD);
  });

  it('labels every question of eval/mintlify-docs with pages the loader indexes', () =>
    evalSetLabelsHold(site, 'mintlify-docs'));

  it('loads every navigation page across the $ref language files', () => {
    const expected = expectedNavPages(corpusDir('mintlify-docs'));
    expect(expected).toHaveLength(980);
    expect(site.pages).toHaveLength(980);
    expect(new Set(site.pages.map((p) => p.path))).toEqual(new Set(expected));
    expect(site.navigation.languages).toEqual(['en', 'fr', 'es', 'zh']);
    expect(site.navigation.versions).toEqual([]);
    // The translated analytics specs lack four operations that translated pages name in `openapi:`.
    expect(site.warnings).toHaveLength(12);
    for (const warning of site.warnings) {
      expect(warning.file).toMatch(
        /^(es|fr|zh)\/api\/analytics\/(feedback-by-page|searches|views|visitors)\.mdx$/,
      );
      expect(warning.message).toMatch(
        /^front matter names GET \/v1\/analytics\/.+, which (es|fr|zh)\/analytics\.openapi\.json does not have/,
      );
    }
  });

  it('adds the operation that `openapi:` front matter names to the page', () => {
    const job = page(site, 'api/agent/v2/create-agent-job');
    expect(job.title).toBe('Create agent job');
    const text = allText(job);
    expect(text).toContain('`POST /v2/agent/{projectId}/job`');
    expect(text).toContain('- `projectId` (string, required): Your project ID.');
    expect(text).toContain('- `prompt` (string, required): The instruction for the agent to execute.');
    // The page's own MDX comes first, then the reference.
    expect(job.chunks.findIndex((c) => c.headings[0] === 'Rate limits')).toBeLessThan(
      job.chunks.findIndex((c) => c.headings[0] === 'Path parameters'),
    );
  });

  it('labels pages with the language that lists them', () => {
    expect(page(site, 'index').languages).toEqual(['en']);
    expect(page(site, 'es/index')).toMatchObject({ languages: ['es'], title: 'Introducción' });
    expect(page(site, 'zh/quickstart').languages).toEqual(['zh']);
  });

  it('skips the noindex changelogs and counts them with orphan files', () => {
    expect(site.pages.some((p) => p.path === 'changelog')).toBe(false);
    expect(site.skipped).toBeGreaterThanOrEqual(4);
  });

  it('turns ParamField, Step and Tab attributes into text', () => {
    const fields = page(site, 'components/fields');
    expect(allText(fields)).toContain('path param (string, required)');
    expect(fields.chunks.find((c) => c.anchor === 'properties-1')?.headings).toEqual([
      'Response field',
      'Properties',
    ]);
    expect(allText(page(site, 'components/steps'))).toContain('First Step');
    expect(allText(page(site, 'components/tabs'))).toMatch(/First tab/i);
  });

  it('puts the description in the first chunk', () => {
    const fields = page(site, 'components/fields');
    expect(fields.chunks[0]?.anchor).toBeNull();
    expect(fields.chunks[0]?.text.startsWith(fields.description ?? '')).toBe(true);
  });
});

describe('mintlify-docs-2025-02-mintjson', () => {
  it('reads the legacy mint.json navigation with nested groups', async () => {
    const site = await loadDocsFolder(corpusDir('mintlify-docs-2025-02-mintjson'), CORPUS_LOAD);
    const expected = expectedNavPages(corpusDir('mintlify-docs-2025-02-mintjson'));
    expect(expected).toHaveLength(92);
    expect(site.pages.map((p) => p.path)).toEqual(expected);
    expect(site.navigation).toEqual({ kind: 'mint.json', versions: [], languages: [], name: 'Mintlify' });
    expect(site.pages.map((p) => p.path)).toContain(
      'settings/authentication-personalization/authentication-setup/choosing-a-handshake',
    );
  });
});

describe('mcp-docs', () => {
  let site: LoadedSite;
  beforeAll(async () => {
    site = await loadDocsFolder(corpusDir('mcp-docs'), CORPUS_LOAD);
  });

  it('labels every question of eval/mcp-docs with pages the loader indexes', () =>
    evalSetLabelsHold(site, 'mcp-docs'));

  it('indexes the navigation pages and declares the versions', () => {
    const expected = expectedNavPages(corpusDir('mcp-docs'));
    expect(expected).toHaveLength(342);
    expect(site.pages).toHaveLength(342);
    expect(site.navigation.versions).toEqual([
      'Version 2026-07-28 (latest)',
      'Version 2025-11-25',
      'Version 2025-06-18',
      'Version 2025-03-26',
      'Version 2024-11-05',
      'Draft',
    ]);
    expect(site.navigation.languages).toEqual([]);
  });

  it('labels versioned pages and leaves unversioned ones unlabelled', () => {
    const versioned = site.pages.filter((p) => p.versions.length > 0);
    expect(versioned.length).toBeGreaterThan(100);
    const spec = site.pages.find((p) => p.path.startsWith('specification/2025-06-18/'));
    expect(spec?.versions).toEqual(['Version 2025-06-18']);
    expect(site.pages.some((p) => p.versions.length === 0)).toBe(true);
  });
});

describe('crewai-docs', () => {
  let site: LoadedSite;
  beforeAll(async () => {
    site = await loadDocsFolder(corpusDir('crewai-docs'), CORPUS_LOAD);
  });

  it('labels every question of eval/crewai-docs with pages the loader indexes', () =>
    evalSetLabelsHold(site, 'crewai-docs'));

  it('indexes the two versions on disk and caps missing-page warnings', () => {
    expect(expectedNavPages(corpusDir('crewai-docs'))).toHaveLength(1410);
    expect(site.pages).toHaveLength(1410);
    expect(site.warnings.length).toBeLessThanOrEqual(210);
    expect(site.warnings.at(-1)?.message).toMatch(/^\d+ more missing pages$/);
    expect(site.warnings[0]).toMatchObject({ file: 'docs.json', line: 68 });
  });

  it('declares languages × versions as the config names them', () => {
    expect(site.navigation.languages).toEqual(['en', 'pt-BR', 'ko', 'ar']);
    expect(site.navigation.versions).toHaveLength(35);
    expect(site.navigation.versions.slice(0, 3)).toEqual(['Edge', 'v1.15.17', 'v1.15.16']);
    expect(page(site, 'edge/pt-BR/introduction')).toMatchObject({ versions: ['Edge'], languages: ['pt-BR'] });
    expect(page(site, 'v1.15.17/ko/introduction')).toMatchObject({
      versions: ['v1.15.17'],
      languages: ['ko'],
    });
  });
});

describe('unstructured-docs', () => {
  let site: LoadedSite;
  beforeAll(async () => {
    site = await loadDocsFolder(corpusDir('unstructured-docs'), CORPUS_LOAD);
  });

  it('labels every question of eval/unstructured-docs with pages the loader indexes', () =>
    evalSetLabelsHold(site, 'unstructured-docs'));

  it('indexes the navigation pages, ignoring global external anchors', () => {
    expect(expectedNavPages(corpusDir('unstructured-docs'))).toHaveLength(334);
    expect(site.pages).toHaveLength(334);
    expect(site.pages.some((p) => p.path.startsWith('http'))).toBe(false);
  });

  it('inlines imported snippets where the component is used', () => {
    const overview = page(site, 'ui/overview');
    const connect = overview.chunks.find((c) => c.text.includes('Connect'));
    expect(connect?.text).toContain(
      'Unstructured recommends that you choose the **Auto**'.replace(/\*\*/g, ''),
    );
    expect(site.warnings.filter((w) => w.message.includes('snippet'))).toEqual([]);
  });
});

describe('eval sets', () => {
  for (const name of ['claude-docs', 'tv-manual']) {
    it(`${name}: every relevant page id is a loaded page`, async () => {
      const site = await loadDocsFolder(path.join(evalSetDir(name), 'docs'));
      const ids = new Set(site.pages.map((p) => p.path));
      const lines = readFileSync(path.join(evalSetDir(name), 'questions.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean);
      const relevant = new Set(lines.flatMap((l) => (JSON.parse(l) as { relevant: string[] }).relevant));
      expect(relevant.size).toBeGreaterThan(10);
      expect([...relevant].filter((id) => !ids.has(id))).toEqual([]);
      expect(site.pages).toHaveLength(name === 'claude-docs' ? 45 : 261);
    });
  }
});
