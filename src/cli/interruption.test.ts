import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_INGESTION_ERROR } from '../ingest/recover-interrupted-ingestions.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { repoRoot } from '../testing/paths.ts';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';

/**
 * Runs the real CLI, waits until its ingestion has a job running, then presses Ctrl-C (SIGINT) and
 * returns how it exited. Nothing else touches the database meanwhile: what is settled, the CLI settled.
 */
async function interruptedDuringIngestion(db: TestDatabase, args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), '--database-url', db.url, ...args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 100_000;
    for (;;) {
      const running = await db.storage.db
        .selectFrom('ingestion_jobs')
        .select('id')
        .where('status', '=', 'in_progress')
        .executeTakeFirst();
      if (running) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ingestion ran: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    return { code: await exited, stdout, stderr };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
}

describe('Ctrl-C during an ingestion', { timeout: 150_000 }, () => {
  let db: TestDatabase;
  let big: string;
  let small: string;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    big = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-interrupted-'));
    // Enough pages that the ingestion is still running when Ctrl-C comes.
    const body = Array.from({ length: 400 }, (_, i) => `word${i % 97} rotate keys`).join(' ');
    for (let i = 0; i < 3000; i++)
      fs.writeFileSync(path.join(big, `page-${i}.md`), `# Page ${i}\n\n${body}\n`);
    small = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-interrupted-small-'));
    fs.writeFileSync(path.join(small, 'index.md'), '# Welcome\n\nTiny docs.\n');
  });
  afterAll(async () => {
    await db?.drop();
    fs.rmSync(big, { recursive: true, force: true });
    fs.rmSync(small, { recursive: true, force: true });
  });

  it('in init, creates nothing, so the same init works next', async () => {
    const run = await interruptedDuringIngestion(db, ['init', '--site', 'halted', '--docs', big]);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('docent: interrupted: nothing was created');
    expect(run.stdout).toBe('');
    expect(await db.storage.db.selectFrom('organizations').select('id').execute()).toEqual([]);
    expect(await db.storage.db.selectFrom('ingestion_jobs').select('id').execute()).toEqual([]);
    expect(await db.storage.db.selectFrom('server_instances').select('id').execute()).toEqual([]);

    const again = await runCliInProcess(db.url, 'init', '--site', 'halted', '--docs', small);
    expect(again).toMatch(/^Site "halted" created: 1 page/);
  });

  it('in ingest, marks its job failed at once and keeps the site as it was', async () => {
    const run = await interruptedDuringIngestion(db, ['ingest', big, '--site', 'halted']);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('docent: interrupted: the ingestion was marked failed');
    const jobs = await db.storage.db
      .selectFrom('ingestion_jobs')
      .select(['status', 'error'])
      .orderBy('created_at')
      .execute();
    expect(jobs).toEqual([
      { status: 'success', error: null },
      { status: 'failure', error: INTERRUPTED_INGESTION_ERROR },
    ]);
    expect(await db.storage.db.selectFrom('pages').select('path').execute()).toEqual([{ path: 'index' }]);
    expect(await db.storage.db.selectFrom('server_instances').select('id').execute()).toEqual([]);
  });
});
