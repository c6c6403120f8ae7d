import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../testing/paths.ts';

const run = promisify(execFile);
const cli = path.join(repoRoot, 'src/cli/main.ts');

async function docent(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', cli, ...args], {
      cwd: repoRoot,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('a database the CLI cannot open', { timeout: 180_000 }, () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-cli-open-'));
  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('is one line naming the problem, exit 1, no stack trace', async () => {
    const notDatabase = path.join(folder, 'notes.db');
    fs.writeFileSync(notDatabase, 'these are notes, not a database\n'.repeat(200));
    const cases: [string, RegExp][] = [
      [
        `sqlite:${notDatabase}`,
        /^docent: Cannot open the database \(.*notes\.db\): file is not a database\n$/,
      ],
      [`sqlite:${folder}`, /^docent: Cannot open the database \(.*\): unable to open database file\n$/],
      // Port 1: nothing listens there; the password is never printed.
      [
        'postgres://docent:secret-pw@127.0.0.1:1/docent',
        /^docent: Cannot open the database \(the PostgreSQL server\): .*ECONNREFUSED.*\n$/,
      ],
    ];
    for (const [url, expected] of cases) {
      const result = await docent(['--database-url', url, 'sites', 'list']);
      expect(result.code, url).toBe(1);
      expect(result.stderr, url).toMatch(expected);
      expect(result.stderr, url).not.toContain('    at ');
      expect(result.stderr, url).not.toContain('secret-pw');
    }
    // The stdio MCP server opens the database the same way.
    const mcp = await docent(['--database-url', cases[0]?.[0] ?? '', 'mcp', '--site', 'docs']);
    expect(mcp.code).toBe(1);
    expect(mcp.stderr).toMatch(cases[0]?.[1] ?? /never/);
  });
});
