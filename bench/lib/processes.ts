/**
 * Child processes for the benchmarks: servers run in their own Node process (so their CPU and memory
 * are theirs alone), started as `npm start` starts them and stopped with SIGTERM; their memory is read
 * from /proc.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { repoRoot } from '../../src/testing/paths.ts';

export interface StartedProcess<T> {
  child: ChildProcess;
  /** What `ready` found in a stdout line (e.g. the port). */
  value: T;
}

/**
 * Runs `node <args…>` from the repository root (with `--import tsx` when the script is TypeScript) and
 * resolves once `ready` returns a value for a line the child printed on stdout. Rejects if the child
 * exits first or `timeoutMs` passes.
 */
export function startNodeScript<T>(
  args: string[],
  env: Record<string, string>,
  ready: (line: string) => T | undefined,
  timeoutMs = 60_000,
  /** Node flags before the script (e.g. `--cpu-prof`); none by default, as `npm start` runs. */
  nodeArgs: string[] = [],
): Promise<StartedProcess<T>> {
  const loader = args[0]?.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code} before it was ready`));
    });
    // Keep reading stdout for the child's whole life so it never blocks on a full pipe.
    readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (done) return;
      let value: T | undefined;
      try {
        value = ready(line);
      } catch {
        value = undefined;
      }
      if (value !== undefined) {
        done = true;
        clearTimeout(timer);
        resolve({ child, value });
      }
    });
  });
}

export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Resident memory of a process from `/proc/<pid>/status` (Linux): now (VmRSS) and peak (VmHWM), bytes. */
export function processMemory(pid: number | undefined): { rss: number; peak: number } | null {
  if (pid === undefined) return null;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string): number =>
      Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return null;
  }
}

/**
 * The Node flags `npm start` gives the server (package.json's `start` script, `[exec] node <flags>
 * scripts/start.mjs`), read from the tree at `root`: every server or CLI a benchmark starts runs with
 * them, as a deployment does, and a baseline tree with its own.
 */
export function startScriptNodeFlags(root: string = repoRoot): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const start = manifest.scripts?.start ?? '';
  // `exec` (npm's shell replaced by the server, so signals reach it) in this tree, not in older ones.
  const match = /^(?:exec\s+)?node((?:\s+--\S+)*)\s+scripts\/start\.mjs\b/.exec(start);
  if (!match)
    throw new Error(
      `package.json in ${root}: the start script is not "node [flags] scripts/start.mjs": ${start}`,
    );
  return (match[1] ?? '')
    .trim()
    .split(/\s+/)
    .filter((flag) => flag !== '');
}

let built = false;

/** Builds dist/ when it is missing or older than the sources, once per benchmark process. */
export function ensureBuild(): void {
  if (built) return;
  const result = spawnSync(process.execPath, ['scripts/start.mjs', '--build-only'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`npm run build failed (exit ${result.status})`);
  built = true;
}

/** Starts the compiled server (`npm start`) on a free port with the given database; returns its origin. */
export async function startDocentServer(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<StartedProcess<string>> {
  ensureBuild();
  return startNodeScript(
    // What `npm start` runs: the compiled server, built first when the build is missing or stale.
    ['scripts/start.mjs'],
    {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DOCENT_SEED_DEMO: 'false',
      ...env,
    },
    (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      return entry.msg === 'docent listening' ? `http://127.0.0.1:${entry.port}` : undefined;
    },
    60_000,
    startScriptNodeFlags(),
  );
}

/**
 * Starts `bench/bare-server.ts` (the bare Hono + ai@4.3.19 stream route) and returns its origin; with the
 * server's own Node flags, so that the two differ only in what they run.
 */
export async function startBareServer(): Promise<StartedProcess<string>> {
  return startNodeScript(
    ['bench/bare-server.ts'],
    {},
    (line) => (/^\d+$/.test(line.trim()) ? `http://127.0.0.1:${line.trim()}` : undefined),
    60_000,
    startScriptNodeFlags(),
  );
}
