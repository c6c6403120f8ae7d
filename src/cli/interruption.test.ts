import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INTERRUPTED_INGESTION_ERROR } from '../ingest/recover-interrupted-ingestions.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { repoRoot } from '../testing/paths.ts';
import { runCliInProcess } from '../testing/run-cli-in-process.ts';
import { settleIfInterrupted } from './interruption.ts';

describe('settleIfInterrupted', () => {
  it('settles once on Ctrl-C, then exits 130; a second Ctrl-C exits at once', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const listening = () => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const before = listening();
    try {
      const exit = vi.fn();
      let finishSettling = () => {};
      const settle = vi.fn(
        () =>
          new Promise<void>((resolve) => {
            finishSettling = resolve;
          }),
      );
      let finishWork = (_value: string) => {};
      const outcome = vi.fn();
      void settleIfInterrupted(
        settle,
        'undone',
        () =>
          new Promise<string>((resolve) => {
            finishWork = resolve;
          }),
        exit,
      ).then(outcome, outcome);

      process.emit('SIGINT');
      expect(settle).toHaveBeenCalledTimes(1);
      expect(exit).not.toHaveBeenCalled();
      // What the work does once interrupted is not reported: the process ends once settled.
      finishWork('done');
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(outcome).not.toHaveBeenCalled();

      process.emit('SIGINT');
      expect(exit).toHaveBeenCalledTimes(1);
      expect(exit).toHaveBeenCalledWith(130);
      finishSettling();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(settle).toHaveBeenCalledTimes(1);
      expect(stderr).toHaveBeenCalledWith('docent: interrupted: undone\n');
      // Settled, its handlers are gone: left installed, they swallowed every later Ctrl-C of a process
      // whose `exit` returns (this test's).
      expect(listening()).toEqual(before);
    } finally {
      stderr.mockRestore();
    }
  });

  it('stops listening once the work is done', async () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    expect(
      await settleIfInterrupted(
        async () => {},
        'undone',
        async () => 'done',
        vi.fn(),
      ),
    ).toBe('done');
    await expect(
      settleIfInterrupted(
        async () => {},
        'undone',
        () => Promise.reject(new Error('failed')),
        vi.fn(),
      ),
    ).rejects.toThrow('failed');
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
  });
});

/**
 * Runs the real CLI, waits until its ingestion has a job running, then presses Ctrl-C (SIGINT) and
 * returns how it exited. Nothing else touches the database meanwhile: what is settled, the CLI settled.
 */
function interruptedDuringIngestion(db: TestDatabase, args: string[]) {
  return interruptedOnceRunning(db.url, args, {}, async () =>
    Boolean(
      await db.storage.db
        .selectFrom('ingestion_jobs')
        .select('id')
        .where('status', '=', 'in_progress')
        .executeTakeFirst(),
    ),
  );
}

/** Runs the real CLI, presses Ctrl-C once `running` says it is under way, and returns how it exited. */
async function interruptedOnceRunning(
  databaseUrl: string,
  args: string[],
  env: Record<string, string>,
  running: () => Promise<boolean>,
) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), '--database-url', databaseUrl, ...args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
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
      if (await running()) break;
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`it never got under way: ${stderr}`);
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

describe('Ctrl-C during eval', { timeout: 150_000 }, () => {
  it('removes its temporary database', async () => {
    const set = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-interrupted-set-'));
    // Its own temp folder, for the child's throwaway database only.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-interrupted-tmp-'));
    try {
      const body = Array.from({ length: 400 }, (_, i) => `word${i % 97} rotate keys`).join(' ');
      fs.mkdirSync(path.join(set, 'docs'));
      for (let i = 0; i < 3000; i++)
        fs.writeFileSync(path.join(set, 'docs', `page-${i}.md`), `# Page ${i}\n\n${body}\n`);
      fs.writeFileSync(
        path.join(set, 'questions.jsonl'),
        `${JSON.stringify({ id: 'q1', question: 'rotate keys', answer: 'Rotate them.', relevant: ['page-1'] })}\n`,
      );
      // Under way once its database has pages written (the WAL of the file in tmp/docent-…/).
      const writing = async () =>
        fs
          .readdirSync(tmp)
          .filter((entry) => entry.startsWith('docent-'))
          .some(
            (dir) =>
              fs.existsSync(path.join(tmp, dir)) &&
              fs.readdirSync(path.join(tmp, dir)).some((f) => f.endsWith('-wal')),
          );
      const run = await interruptedOnceRunning('sqlite::memory:', ['eval', set], { TMPDIR: tmp }, writing);
      expect(run.code).toBe(130);
      expect(run.stderr).toContain('docent: interrupted: its temporary database was removed');
      // tsx keeps its cache there too (tsx-0).
      expect(fs.readdirSync(tmp).filter((entry) => entry.startsWith('docent-'))).toEqual([]);
    } finally {
      fs.rmSync(set, { recursive: true, force: true });
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
