import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LoopbackServer,
  startLoopbackLlm,
  writeOpenAIStream,
} from '../assistant/providers/testing/loopback-llm.ts';
import { getIngestionJob } from '../ingest/jobs.ts';
import { INTERRUPTED_INGESTION_ERROR } from '../ingest/recover-interrupted-ingestions.ts';
import { askBody } from '../limits/limits-fixtures.ts';
import { openStorage, type Storage } from '../storage/database.ts';
import type { TemporaryDatabase } from '../storage/temporary-database.ts';
import { createApiKey } from '../tenancy/api-keys.ts';
import { bootstrapSite } from '../tenancy/bootstrap-site.ts';
import { createTemporaryTestDatabase, dialects } from '../testing/databases.ts';
import { corpusDir, repoRoot } from '../testing/paths.ts';
import { smallDocs } from '../testing/small-docs.ts';

/** Answers completed before the crash, and answers streaming when the server is killed. */
const COMPLETED = 2;
const INTERRUPTED = 8;

interface Spawned {
  child: ChildProcess;
  port: number;
  exited: Promise<number | null>;
}

/** `npm start`'s entry point as a real process, on the given database and model. */
async function startProcess(env: Record<string, string>): Promise<Spawned> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/main.ts')], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DOCENT_SEED_DEMO: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg === 'docent listening' && entry.port) resolve(entry.port);
      } catch {
        // The banner.
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${lines.join('\n')}`)));
  });
  return { child, port, exited };
}

/**
 * `kill -9` while answers stream and an ingestion runs, then a restart: the database is intact, every
 * charge has its answer or its refund, every thread reads question → answer, nothing is left in
 * flight, and the ingestion is failed with the site unchanged.
 */
describe.each(dialects)('a server killed mid-answer and restarted, on %s', (dialect) => {
  let database: TemporaryDatabase;
  let storage: Storage;
  let llm: LoopbackServer;
  let key: string;
  let adminKey: string;
  let env: Record<string, string>;
  const processes: ChildProcess[] = [];

  beforeAll(async () => {
    database = await createTemporaryTestDatabase(dialect);
    storage = await openStorage(database.url);
    const boot = await bootstrapSite(storage, { domain: 'crash', docsDir: smallDocs() });
    key = boot.assistantKey;
    adminKey = (
      await createApiKey(storage, { organizationId: boot.site.organization_id, siteId: null, kind: 'admin' })
    ).key;
    // Questions about installing are answered at once; the others stream for a minute, so they are
    // mid-answer when the server is killed.
    llm = await startLoopbackLlm((request, res) =>
      writeOpenAIStream(
        res,
        JSON.stringify(request.body.messages).includes('install')
          ? { tokens: ['Install ', 'it ', 'with ', 'npm.'] }
          : { tokens: Array.from({ length: 600 }, (_, i) => `word${i} `), tokenDelayMs: 100 },
      ),
    );
    env = {
      DATABASE_URL: database.url,
      DOCENT_MODEL: 'openai:gpt-test',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `${llm.origin}/v1`,
      // The admin API may ingest the shared corpora: a big one is still running when the server is killed.
      DOCENT_DOCS_ROOT: path.dirname(corpusDir('mintlify-docs')),
    };
  });
  afterAll(async () => {
    for (const child of processes)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await llm?.close();
    await storage?.close();
    await database?.remove();
  });

  it('refunds the interrupted answers, fails the ingestion, and keeps the ledger and database whole', async () => {
    const first = await startProcess(env);
    processes.push(first.child);
    const ask = (port: number, text: string) =>
      fetch(`http://127.0.0.1:${port}/v1/assistant/crash/message`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
        body: JSON.stringify(askBody(text)),
      });

    for (let i = 0; i < COMPLETED; i++) {
      const response = await ask(first.port, `How do I install it, take ${i}?`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('npm.');
    }
    // Each interrupted answer has sent its first words: charged, question stored, answer not yet.
    const streaming = await Promise.all(
      Array.from({ length: INTERRUPTED }, async (_, i) => {
        const response = await ask(first.port, `How do I configure the server, question ${i}?`);
        expect(response.status).toBe(200);
        const reader = response.body?.getReader();
        const decoder = new TextDecoder();
        let seen = '';
        while (!/(^|\n)0:/.test(seen)) {
          const chunk = await reader?.read();
          if (!chunk || chunk.done) throw new Error(`stream ended early: ${seen}`);
          seen += decoder.decode(chunk.value);
        }
        return reader;
      }),
    );
    // An ingestion of a 1,000-page site, killed while it runs.
    const pagesBefore = await storage.db.selectFrom('pages').select('path').execute();
    const ingestion = await fetch(`http://127.0.0.1:${first.port}/v1/admin/sites/crash/ingestions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminKey}` },
      body: JSON.stringify({ docsDir: 'mintlify-docs' }),
    });
    expect(ingestion.status).toBe(202);
    const jobId = ((await ingestion.json()) as { statusId: string }).statusId;
    await expect
      .poll(async () => (await getIngestionJob(storage, jobId))?.status, { timeout: 30_000 })
      .toBe('in_progress');

    first.child.kill('SIGKILL');
    await first.exited;
    await Promise.all(streaming.map((reader) => reader?.cancel().catch(() => {})));

    const inFlight = await storage.db.selectFrom('answers_in_flight').selectAll().execute();
    expect(inFlight).toHaveLength(INTERRUPTED);

    // The restart settles the killed process's answers before it serves: its PID is gone.
    const second = await startProcess(env);
    processes.push(second.child);

    if (dialect === 'sqlite') {
      const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(storage.db);
      expect(check.rows).toEqual([{ integrity_check: 'ok' }]);
    }
    expect(await storage.db.selectFrom('answers_in_flight').selectAll().execute()).toEqual([]);
    const instances = await storage.db.selectFrom('server_instances').select('pid').execute();
    expect(instances.map((row) => Number(row.pid))).toEqual([second.child.pid]);

    // Every charge has its stored complete answer, or its refund; never both, never neither.
    const ledger = await storage.db
      .selectFrom('credit_ledger')
      .select(['request_id', 'kind', 'credits'])
      .execute();
    const messages = await storage.db
      .selectFrom('thread_messages')
      .select(['thread_id', 'seq', 'role', 'status', 'request_id'])
      .orderBy('thread_id')
      .orderBy('seq')
      .execute();
    const charges = ledger.filter((e) => e.kind === 'charge');
    expect(charges).toHaveLength(COMPLETED + INTERRUPTED);
    let refunded = 0;
    for (const charge of charges) {
      const refund = ledger.some((e) => e.kind === 'refund' && e.request_id === charge.request_id);
      const answer = messages.find((m) => m.role === 'assistant' && m.request_id === charge.request_id);
      expect(answer, charge.request_id).toBeDefined();
      expect(answer?.status === 'complete', charge.request_id).toBe(!refund);
      if (refund) refunded++;
    }
    expect(refunded).toBe(INTERRUPTED);
    const balance = await storage.db.selectFrom('credit_balances').select('used').execute();
    const net = ledger.reduce((sum, e) => sum + Number(e.credits), 0);
    expect(balance.map((b) => Number(b.used))).toEqual([net]);
    expect(net).toBe(COMPLETED);

    // Every thread reads question → answer.
    const threads = new Map<string, string[]>();
    for (const m of messages) threads.set(m.thread_id, [...(threads.get(m.thread_id) ?? []), m.role]);
    expect(threads.size).toBe(COMPLETED + INTERRUPTED);
    for (const roles of threads.values()) expect(roles).toEqual(['user', 'assistant']);

    // The ingestion is failed with a reason, and the site still serves what it had.
    expect(await getIngestionJob(storage, jobId)).toMatchObject({
      status: 'failure',
      error: INTERRUPTED_INGESTION_ERROR,
    });
    expect(await storage.db.selectFrom('pages').select('path').execute()).toEqual(pagesBefore);

    // And the restarted server answers.
    const after = await ask(second.port, 'How do I install it, after the restart?');
    expect(after.status).toBe(200);
    await after.text();

    // A clean stop leaves no instance behind.
    second.child.kill('SIGTERM');
    await second.exited;
    expect(await storage.db.selectFrom('server_instances').selectAll().execute()).toEqual([]);
  }, 120_000);
});
