import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCS_TOTAL_BYTES } from '../ingest/ingest-limits.ts';
import type { TemporaryDatabase } from '../storage/temporary-database.ts';
import { createTemporaryTestDatabase, dialects } from '../testing/databases.ts';
import { evalSetDir, repoRoot } from '../testing/paths.ts';
import { versionedDocs } from '../testing/versioned-docs.ts';

const run = promisify(execFile);
const cli = path.join(repoRoot, 'src/cli/main.ts');

/** Runs the real CLI as a user would (`npm run docent -- …` runs exactly this). */
async function docent(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', cli, ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

// Each case spawns several real CLI processes; on a busy 2-core machine that takes a while.
const CLI_TEST_TIMEOUT = 240_000;

describe.each(dialects)('the CLI on %s', { timeout: CLI_TEST_TIMEOUT }, (dialect) => {
  let database: TemporaryDatabase;
  let docs: string;
  beforeAll(async () => {
    database = await createTemporaryTestDatabase(dialect);
    docs = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-cli-'));
    fs.cpSync(path.join(repoRoot, 'docs'), docs, { recursive: true });
  });
  afterAll(async () => {
    await database.remove();
    fs.rmSync(docs, { recursive: true, force: true });
  });

  it('init, search, ingest and keys work end to end with --json', async () => {
    const db = ['--database-url', database.url];
    const init = await docent([...db, '--json', 'init', '--site', 'clidocs', '--docs', docs]);
    expect(init.code, init.stderr).toBe(0);
    const created = JSON.parse(init.stdout) as { site: string; assistantKey: string };
    expect(created.site).toBe('clidocs');
    expect(created.assistantKey).toMatch(/^svc_dsc_/);

    const again = await docent([...db, 'init', '--site', 'clidocs', '--docs', docs]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);

    const search = await docent([
      ...db,
      '--json',
      'search',
      '--site',
      'clidocs',
      '--limit',
      '3',
      'readiness database reachable',
    ]);
    expect(search.code, search.stderr).toBe(0);
    // The search API's shape: the same use case.
    const results = JSON.parse(search.stdout) as {
      path: string;
      content: string;
      metadata: { breadcrumbs: string[]; score: number };
    }[];
    expect(results).toHaveLength(3);
    expect(results.map((r) => r.path)).toContain('api-reference/health');
    expect(results[0]?.metadata.breadcrumbs.length).toBeGreaterThan(0);
    expect(results[0]?.metadata.score).toBe(1);

    const human = await docent([...db, 'search', '--site', 'clidocs', 'readiness']);
    expect(human.stdout).toMatch(/^1\. .+›?/m);

    const unchanged = await docent([...db, '--json', 'ingest', docs, '--site', 'clidocs']);
    expect(unchanged.code, unchanged.stderr).toBe(0);
    const counts = (JSON.parse(unchanged.stdout) as { counts: Record<string, number> }).counts;
    expect(counts.added).toBe(0);
    expect(counts.updated).toBe(0);
    expect(counts.unchanged).toBeGreaterThan(5);

    fs.appendFileSync(
      path.join(docs, 'quickstart.mdx'),
      '\n\n## Zebra crossing\n\nA zebra section added for the test.\n',
    );
    const changed = await docent([...db, '--json', 'ingest', docs, '--site', 'clidocs']);
    expect((JSON.parse(changed.stdout) as { counts: Record<string, number> }).counts.updated).toBe(1);
    const zebra = await docent([...db, '--json', 'search', '--site', 'clidocs', 'zebra crossing']);
    expect((JSON.parse(zebra.stdout) as { metadata: { url: string } }[])[0]?.metadata.url).toMatch(
      /^http:\/\/localhost:\d+\/sites\/clidocs\/pages\/quickstart#zebra-crossing$/,
    );
    // The query's words unquoted are one query, as quoted.
    const unquoted = await docent([...db, '--json', 'search', '--site', 'clidocs', 'zebra', 'crossing']);
    expect(unquoted.code, unquoted.stderr).toBe(0);
    expect(JSON.parse(unquoted.stdout)).toEqual(JSON.parse(zebra.stdout));

    const key = await docent([...db, '--json', 'keys', 'create', '--site', 'clidocs']);
    expect(key.code, key.stderr).toBe(0);
    expect((JSON.parse(key.stdout) as { key: string }).key).toMatch(/^svc_dsc_/);
  });

  it('rejects bad input with one clear line and exit code 1', async () => {
    const db = ['--database-url', database.url];
    const cases: [string[], RegExp][] = [
      [['search', '--site', 'nope', 'x'], /No site "nope"/],
      [['search', '--site', 'clidocs', '--limit', '0', 'x'], /--limit must be an integer/],
      [['ingest', path.join(docs, 'missing'), '--site', 'clidocs'], /is not a directory/],
      [['init', '--site', 'Bad_Domain'], /--site:/],
      [['init', '--site', 'typo', '--docs', path.join(docs, 'missing')], /is not a directory/],
      [['eval', docs], /is not an eval set/],
    ];
    // An eval set whose set.json names a docs folder that is not there (a clone without ../shared).
    const farSet = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-cli-far-set-'));
    fs.writeFileSync(path.join(farSet, 'questions.jsonl'), '');
    fs.writeFileSync(path.join(farSet, 'set.json'), '{"docs": "../no-such-corpus"}');
    cases.push([['eval', farSet], /its docs folder \.\.\/no-such-corpus .* does not exist/]);
    // A docs folder over the total size limit (a sparse file: nothing is written): refused before reading.
    const huge = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-cli-huge-'));
    fs.writeFileSync(path.join(huge, 'index.md'), '# Small\n');
    fs.closeSync(fs.openSync(path.join(huge, 'big.md'), 'w'));
    fs.truncateSync(path.join(huge, 'big.md'), MAX_DOCS_TOTAL_BYTES + 1);
    cases.push([
      ['init', '--site', 'huge', '--docs', huge],
      /hold more than .* bytes \(MAX_DOCS_TOTAL_BYTES\); nothing ingested/,
    ]);
    for (const [args, message] of cases) {
      const result = await docent([...db, ...args]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
    // Nothing was created by the init whose folder did not exist: the same domain is free.
    const sites = await docent([...db, '--json', 'sites', 'list']);
    expect(sites.stdout).not.toContain('"typo"');
    // A command other than init on a SQLite file that is not there: a mistyped path, or a server on
    // another database. Nothing is created.
    const missing = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docent-cli-nodb-')), 'docent.db');
    const noDatabase = await docent([
      '--database-url',
      `sqlite:${missing}`,
      'keys',
      'create',
      '--admin',
      '--site',
      'demo',
    ]);
    expect(noDatabase.code).toBe(1);
    expect(noDatabase.stderr).toMatch(/^docent: No database at .*docent\.db: create one with `docent init`/);
    expect(fs.existsSync(missing)).toBe(false);
    const badUrl = await docent(['--database-url', 'mysql://x', 'search', '--site', 'a', 'b']);
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toMatch(/Unsupported database URL/);
    fs.rmSync(huge, { recursive: true, force: true });
    // A version the docs do not have: the domain's own words, with no stack.
    const versioned = await docent([...db, 'init', '--site', 'clivers', '--docs', versionedDocs()]);
    expect(versioned.code, versioned.stderr).toBe(0);
    const v9 = await docent([...db, 'search', '--site', 'clivers', '--version', 'v9', 'install']);
    expect(v9.code).toBe(1);
    expect(v9.stderr).toBe('docent: These docs have no version "v9"; their versions are v1, v2\n');
  });
});

describe('eval', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('prints the metrics the issue names, scored on a real set', async () => {
    const rowsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docent-cli-eval-')), 'rows.jsonl');
    const result = await docent(['--json', 'eval', evalSetDir('claude-docs'), '--questions', rowsFile]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, number>;
    for (const key of ['questions', 'hit@1', 'hit@5', 'hit@10', 'mrr@10', 'p50_ms', 'p99_ms']) {
      expect(typeof report[key], key).toBe('number');
    }
    expect(report.questions).toBe(100);
    expect(report['hit@5']).toBeGreaterThan(0.91);
    // One row a question, in the set's order, whose ranks make the report's hit@1.
    const rows = fs
      .readFileSync(rowsFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; rank: number | null });
    fs.rmSync(path.dirname(rowsFile), { recursive: true, force: true });
    expect(rows).toHaveLength(100);
    expect(rows.filter((r) => r.rank === 1).length / 100).toBe(report['hit@1']);
  });

  it("refuses to write its rows over the set's own questions, and leaves an earlier rows file be when the run fails", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-cli-eval-set-'));
    try {
      fs.mkdirSync(path.join(dir, 'docs'));
      fs.writeFileSync(path.join(dir, 'docs', 'a.md'), '# A\n\nSome text.\n');
      const questions = path.join(dir, 'questions.jsonl');
      // Invalid: an answerable question must list its pages.
      const line = `${JSON.stringify({ id: 'q1', question: 'a?', answer: 'a', relevant: [] })}\n`;
      fs.writeFileSync(questions, line);
      const refused = await docent(['eval', dir, '--questions', questions]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('is an input of this run');
      expect(fs.readFileSync(questions, 'utf8')).toBe(line);
      const rows = path.join(dir, 'rows.jsonl');
      fs.writeFileSync(rows, 'an earlier run\n');
      const failed = await docent(['eval', dir, '--questions', rows]);
      expect(failed.code).toBe(1);
      expect(fs.readFileSync(rows, 'utf8')).toBe('an earlier run\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
