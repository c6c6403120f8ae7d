import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../storage/database.ts';
import type { TemporaryDatabase } from '../storage/temporary-database.ts';
import { createTemporaryTestDatabase } from '../testing/databases.ts';
import { repoRoot } from '../testing/paths.ts';
import { testRedisUrl } from '../testing/services.ts';
import { getBalance } from './credits.ts';
import { ask, countStatuses, createTenant } from './limits-fixtures.ts';

interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
}

/** Starts the real server entry point in a child process and waits for it to say which port it took. */
function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`server did not start in time:\n${output}`)), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/"port":(\d+)[^\n]*"msg":"docent listening"/);
      if (match) {
        clearTimeout(timer);
        resolve({ child, baseUrl: `http://127.0.0.1:${match[1]}` });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => fail(new Error(`server exited with ${code}:\n${output}`)));
  });
}

async function stopServerProcess(server: ServerProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const redisUrl = testRedisUrl();

// Skipped only off CI with no Redis to be had; the test run's first lines say so.
describe.skipIf(redisUrl === null)('two server processes sharing PostgreSQL and Redis', () => {
  let database: TemporaryDatabase;
  let storage: Storage;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createTemporaryTestDatabase('postgres');
    // Migrated here, before either process starts.
    storage = await openStorage(database.url);
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DOCENT_SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
    };
    servers.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])));
  });
  afterAll(async () => {
    await Promise.all(servers.map(stopServerProcess));
    await storage?.close();
    await database?.remove();
  });

  it('listens on two different ports', () => {
    expect(servers).toHaveLength(2);
    expect(servers[0]?.baseUrl).not.toBe(servers[1]?.baseUrl);
  });

  it('answers exactly 50 of 200 concurrent requests against 50 credits, across both processes', async () => {
    const tenant = await createTenant(storage, { domain: 'mp-credits', plan: { monthlyCredits: 50 } });
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        ask(servers[i % 2]?.baseUrl ?? '', 'mp-credits', tenant.assistantKey),
      ),
    );
    expect(countStatuses(responses.map((r) => r.status))).toEqual({ 200: 50, 402: 150 });
    // Both processes answered some.
    const answeredBy = new Set(
      responses.map((r, i) => (r.status === 200 ? i % 2 : -1)).filter((i) => i >= 0),
    );
    expect(answeredBy).toEqual(new Set([0, 1]));
    const entries = await storage.db
      .selectFrom('credit_ledger')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(entries).toHaveLength(50);
    expect(new Set(entries.map((e) => e.request_id)).size).toBe(50);
    expect((await getBalance(storage, tenant.organization.id)).used).toBe(50);
  });

  it('answers exactly 20 of 100 concurrent requests under 20/hour, across both processes', async () => {
    const tenant = await createTenant(storage, { domain: 'mp-rated', plan: { orgRequestsPerHour: 20 } });
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        ask(servers[i % 2]?.baseUrl ?? '', 'mp-rated', tenant.assistantKey),
      ),
    );
    expect(countStatuses(responses.map((r) => r.status))).toEqual({ 200: 20, 429: 80 });
    const entries = await storage.db
      .selectFrom('credit_ledger')
      .select('id')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(entries).toHaveLength(20);
  });
});
