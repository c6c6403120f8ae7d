import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.ts';
import { ask, askBody, createTenant, type Tenant } from '../../../limits/limits-fixtures.ts';
import { type RunningServer, startServer } from '../../../server.ts';
import { createTemporaryTestDatabase, dialects } from '../../../testing/databases.ts';
import { snippetChain } from '../../../testing/snippet-chain.ts';

const fine = (title: string): string => `---\ntitle: ${title}\n---\n\nA fine page about widgets.\n`;

/**
 * Docs folders an admin of any organization can ingest. Before parsing moved into workers each of them
 * stopped the server: the first two threw inside the page loader (an unhandled rejection ending the
 * process, the job left in_progress), the emphasis runs held the main thread for a minute.
 */
// 25 snippets of 2 KB, each including the next ten times: 10^24 inclusions without a limit.
const fanOut = (): Record<string, string> => ({
  'index.md': fine('Fan-out'),
  'fan.mdx': `import S0 from '/snippets/s0.mdx';\n\n# Fan\n\n<S0 />\n`,
  ...snippetChain({ count: 25, includesOfNext: 10, body: () => `${'Widgets need gadgets. '.repeat(90)}\n` }),
});

/** 2 MB (under the page size limit): one header row of 500,000 one-letter cells, gigabytes to parse. */
const wideTable = `|${'a|'.repeat(500_000)}\n|${'-|'.repeat(500_000)}\n`;

const hostileFolders: Record<
  string,
  { bad: string | null; files: Record<string, string>; warnings?: RegExp[] }
> = {
  'nested-lists': {
    bad: 'deep.md',
    files: { 'index.md': fine('Lists'), 'deep.md': `${'- '.repeat(5000)}item\n` },
    warnings: [/^a line opens more than 32 nested lists or block quotes \(MAX_LINE_NESTING\); skipped$/],
  },
  'nested-jsx': {
    bad: 'deep.mdx',
    files: { 'index.mdx': fine('JSX'), 'deep.mdx': `${'<Note>'.repeat(5000)}x${'</Note>'.repeat(5000)}\n` },
  },
  'emphasis-runs': {
    bad: 'emphasis.md',
    files: { 'index.md': fine('Emphasis'), 'emphasis.md': `${'*a_ '.repeat(20_000)}\n` },
  },
  'snippet-fan-out': {
    bad: 'fan.mdx',
    files: fanOut(),
    warnings: [
      /^snippets nested deeper than 8 \(MAX_SNIPPET_DEPTH\); snippets\/s8\.mdx and any deeper not inlined$/,
      /^page expands past \d+ characters with its snippets \(MAX_PAGE_EXPANDED_CHARS\); snippets\/s\d+\.mdx and later snippets not inlined$/,
    ],
  },
  'wide-table': {
    bad: 'wide.md',
    files: { 'index.md': fine('Tables'), 'wide.md': wideTable },
    warnings: [/^more than \d+ markup characters \(MAX_PAGE_MARKUP_CHARS\); skipped$/],
  },
  'prototype-labels': {
    bad: null,
    files: {
      'docs.json': JSON.stringify({
        name: 'Labels',
        navigation: {
          versions: ['constructor', '__proto__'].map((version) => ({
            version,
            languages: [
              { language: 'constructor', pages: ['index'] },
              { language: '__proto__', pages: ['other'] },
            ],
          })),
        },
      }),
      'index.md': fine('Index'),
      'other.md': fine('Other'),
    },
  },
};

/** Text of the hostile pages that a warning must never quote. */
const pageContent = ['- - -', '<Note>', '*a_', 'Widgets need gadgets', 'a|a|'];

interface JobJson {
  status: string;
  error: string | null;
  counts: { pages: number } | null;
  warnings: { file: string; line?: number; message: string }[];
}

describe.each(dialects)('hostile docs folders through the admin API on %s', (dialect) => {
  let server: RunningServer;
  let baseUrl: string;
  let removeDatabase: () => Promise<void>;
  let docsRoot: string;
  const tenants = new Map<string, Tenant>();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    docsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-hostile-root-'));
    for (const [name, { files }] of Object.entries(hostileFolders)) {
      fs.mkdirSync(path.join(docsRoot, name));
      for (const [file, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(docsRoot, name, file)), { recursive: true });
        fs.writeFileSync(path.join(docsRoot, name, file), text);
      }
    }
    const database = await createTemporaryTestDatabase(dialect);
    removeDatabase = () => database.remove();
    // As startTestServer, with the docs root an operator sets through DOCENT_DOCS_ROOT.
    const config = {
      ...loadConfig({ DOCENT_DOCS_ROOT: docsRoot }),
      databaseUrl: database.url,
      port: 0,
      host: '127.0.0.1',
      seedDemo: false,
    };
    server = await startServer(config, { logger: pino({ level: 'silent' }) });
    baseUrl = `http://127.0.0.1:${server.port}`;
    for (const name of Object.keys(hostileFolders)) {
      tenants.set(name, await createTenant(server.storage, { domain: name }));
    }
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server?.close();
    await removeDatabase?.();
    fs.rmSync(docsRoot, { recursive: true, force: true });
  });

  const adminCall = async (key: string, method: string, url: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${url}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  it('ends every job with warnings naming the bad pages, and keeps serving answers', async () => {
    const started = new Map<string, string>();
    for (const [name, tenant] of tenants) {
      const trigger = await adminCall(tenant.adminKey, 'POST', `/v1/admin/sites/${name}/ingestions`, {
        docsDir: name,
      });
      expect(trigger.status, name).toBe(202);
      started.set(name, trigger.json.statusUrl as string);
    }

    // Polled through the same server: it has to keep answering while the pages are parsed.
    const jobs = new Map<string, JobJson>();
    const deadline = Date.now() + 150_000;
    while (jobs.size < started.size) {
      expect(
        Date.now(),
        `jobs still running: ${[...started.keys()].filter((n) => !jobs.has(n))}`,
      ).toBeLessThan(deadline);
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      for (const [name, statusUrl] of started) {
        if (jobs.has(name)) continue;
        const job = (await adminCall((tenants.get(name) as Tenant).adminKey, 'GET', statusUrl)).json;
        if (job.status !== 'queued' && job.status !== 'in_progress')
          jobs.set(name, job as unknown as JobJson);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    for (const [name, { bad, warnings }] of Object.entries(hostileFolders)) {
      const job = jobs.get(name) as JobJson;
      expect(job.status, `${name}: ${job.error}`).toBe('success');
      const pages = await server.storage.db
        .selectFrom('pages')
        .select(['path', 'versions', 'languages'])
        .where('site_id', '=', (tenants.get(name) as Tenant).site.id)
        .orderBy('path')
        .execute();
      const paths = pages.map((p) => p.path);
      expect(paths, name).toContain('index');
      for (const warning of job.warnings) {
        for (const text of pageContent) expect(warning.message, name).not.toContain(text);
      }
      if (bad === null) {
        expect(job.warnings).toEqual([]);
        expect(pages).toEqual([
          { path: 'index', versions: '["constructor","__proto__"]', languages: '["constructor"]' },
          { path: 'other', versions: '["constructor","__proto__"]', languages: '["__proto__"]' },
        ]);
        continue;
      }
      // Parsed in a worker, a page either loads (a worker's stack is deeper than the main thread's) or is
      // skipped with a warning naming it; which one depends on the machine's speed against the budget.
      const badId = bad.replace(/\.mdx?$/, '');
      const warned = job.warnings.filter((w) => w.file === bad);
      if (warnings)
        expect(warned, name).toEqual(
          warnings.map((message) => ({ file: bad, message: expect.stringMatching(message) })),
        );
      else if (paths.includes(badId)) expect(warned, name).toEqual([]);
      else expect(warned, name).toEqual([{ file: bad, message: expect.stringMatching(/; page skipped$/) }]);
    }

    // The same server still answers, on both wires, and a filter on a prototype-named label is a label.
    const lists = tenants.get('nested-lists') as Tenant;
    const v1 = await ask(baseUrl, 'nested-lists', lists.assistantKey, {
      body: askBody('Tell me about widgets'),
    });
    expect(v1.status).toBe(200);
    expect(v1.text).toContain('widget');
    const labels = tenants.get('prototype-labels') as Tenant;
    const filtered = await ask(baseUrl, 'prototype-labels', labels.assistantKey, {
      body: {
        ...askBody('Tell me about widgets'),
        filter: { language: 'constructor', version: '__proto__' },
      },
    });
    expect(filtered.status).toBe(200);
    expect(filtered.text).toContain('widget');
    const v2 = await fetch(`${baseUrl}/v2/assistant/nested-jsx/message`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${(tenants.get('nested-jsx') as Tenant).assistantKey}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        id: 'chat-1',
        fp: 'anonymous',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Tell me about widgets' }] }],
      }),
    });
    expect(v2.status).toBe(200);
    const stream = await v2.text();
    expect(stream).toContain('widget');
    expect(stream.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect(unhandled).toEqual([]);
  }, 200_000);
});
