/**
 * The code under test for `npm run bench:scale`: a tree is a checkout of Docent (this working tree, or
 * a baseline ref checked out with `git worktree add` into /tmp) run from its compiled build (`dist/`,
 * built by its own `scripts/start.mjs --build-only`, as `npm start` runs it). Every child process the
 * benchmark starts goes through `spawnTracked`: each runs in its own process group and is killed, with
 * its children, when the benchmark ends, fails or is interrupted.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { processMemory, startScriptNodeFlags } from './processes.ts';

export interface Tree {
  /** `current` or `baseline`. */
  label: string;
  root: string;
  /** What the tree is: `working tree` or the ref and its commit. */
  describe: string;
  /** The Node flags of the tree's own `npm start` (processes.ts): its server and CLI run with them. */
  nodeFlags: string[];
}

const live = new Set<ChildProcess>();
/** Temp folders of runs still going (their /usr/bin/time output). */
const tempDirs = new Set<string>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Kills every child still running (their whole process groups) and removes the temp folders of runs
 * that did not finish. Safe to call more than once.
 */
export function killAllChildren(): void {
  for (const child of live) killGroup(child, 'SIGKILL');
  live.clear();
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** A child in its own process group, remembered until it exits so that it can always be killed. */
export function spawnTracked(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; stdout?: 'pipe' | 'ignore' | 'inherit' },
): ChildProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...(options.env ?? {}) },
    stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Stops a child with SIGTERM (SIGKILL after `graceMs`) and waits for it. */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    killGroup(child, 'SIGTERM');
  });
}

/** Resident memory of a process (VmRSS now, VmHWM peak), bytes: the benchmarks' one reader of it. */
export const procMemory = processMemory;

export function currentTree(root: string): Tree {
  return {
    label: 'current',
    root,
    describe: `working tree ${root} (HEAD ${gitHead(root)}, uncommitted edits included)`,
    nodeFlags: startScriptNodeFlags(root),
  };
}

function gitHead(root: string): string {
  return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
}

/**
 * Checks `ref` out into /tmp/docent-scale-<commit> (kept between runs: it is reused when it is already
 * there; `git worktree remove` it when done). node_modules is a symlink to this tree's when both package-lock.json files are
 * identical, else `npm ci` installs the baseline's own.
 */
export function prepareWorktree(
  repoRoot: string,
  ref: string,
  label: string,
  log: (line: string) => void,
): Tree {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: repoRoot,
    encoding: 'utf8',
  }).trim();
  const dir = path.join('/tmp', `docent-scale-${commit.slice(0, 12)}`);
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    log(`${label}: git worktree add --detach ${dir} ${commit.slice(0, 12)}`);
    execFileSync('git', ['worktree', 'add', '--detach', '--force', dir, commit], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  if (!fs.existsSync(path.join(dir, 'node_modules'))) {
    const same =
      fs.readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8') ===
      fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
    if (same) {
      log(`${label}: package-lock.json identical, node_modules symlinked`);
      fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    } else {
      log(`${label}: package-lock.json differs, npm ci`);
      const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
      if (ci.status !== 0) throw new Error(`npm ci in ${dir} failed (exit ${ci.status})`);
    }
  }
  return {
    label,
    root: dir,
    describe: `${ref} (${commit.slice(0, 12)}) in ${dir}`,
    nodeFlags: startScriptNodeFlags(dir),
  };
}

/** Builds the tree's dist/ when it is missing or older than its sources (`npm start`'s own check). */
export function buildTree(tree: Tree): void {
  const result = spawnSync(process.execPath, ['scripts/start.mjs', '--build-only'], {
    cwd: tree.root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`build of ${tree.root} failed (exit ${result.status})`);
}

export interface TimedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
  /** Peak resident memory of the process (kernel's maxrss via /usr/bin/time, else polled VmHWM). */
  peakRssBytes: number;
  peakFrom: '/usr/bin/time' | 'polled VmHWM';
}

const TIME_BINARY = '/usr/bin/time';

/**
 * Runs `node <args>` in the tree's root to its end: wall time and peak RSS. With /usr/bin/time the peak
 * is the kernel's own (getrusage maxrss of the node process, worker threads included); without it,
 * /proc/<pid>/status VmHWM polled every 100 ms.
 */
export async function runNodeTimed(
  tree: Tree,
  args: string[],
  env: Record<string, string> = {},
  onStderrLine?: (line: string) => void,
): Promise<TimedRun> {
  const useTime = fs.existsSync(TIME_BINARY);
  const timeDir = fs.mkdtempSync('/tmp/docent-scale-time-');
  tempDirs.add(timeDir);
  const timeFile = path.join(timeDir, 'time.txt');
  const command = useTime ? TIME_BINARY : process.execPath;
  const nodeArgs = [...tree.nodeFlags, ...args];
  const fullArgs = useTime ? ['-f', '%M', '-o', timeFile, process.execPath, ...nodeArgs] : nodeArgs;
  const started = performance.now();
  const child = spawnTracked(command, fullArgs, { cwd: tree.root, env });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  if (child.stderr) {
    readline.createInterface({ input: child.stderr }).on('line', (line) => {
      stderr += `${line}\n`;
      if (stderr.length > 1_000_000) stderr = stderr.slice(-500_000);
      onStderrLine?.(line);
    });
  }
  let polledPeak = 0;
  const poll = useTime
    ? null
    : setInterval(() => {
        const m = procMemory(child.pid);
        if (m && m.peak > polledPeak) polledPeak = m.peak;
      }, 100);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const seconds = (performance.now() - started) / 1000;
  if (poll) clearInterval(poll);
  let peakRssBytes = polledPeak;
  if (useTime) {
    const text = fs.existsSync(timeFile) ? fs.readFileSync(timeFile, 'utf8') : '';
    const kb = Number(/(\d+)\s*$/.exec(text.trim())?.[1] ?? Number.NaN);
    peakRssBytes = kb * 1024;
  }
  fs.rmSync(timeDir, { recursive: true, force: true });
  tempDirs.delete(timeDir);
  return {
    code,
    stdout,
    stderr,
    seconds,
    peakRssBytes,
    peakFrom: useTime ? '/usr/bin/time' : 'polled VmHWM',
  };
}

/** `docent <args>` through the tree's compiled CLI; throws with its stderr when it fails. */
export async function docentCli(
  tree: Tree,
  databaseUrl: string,
  args: string[],
  onStderrLine?: (line: string) => void,
): Promise<TimedRun> {
  const run = await runNodeTimed(
    tree,
    ['dist/cli/main.js', '--database-url', databaseUrl, '--json', ...args],
    {},
    onStderrLine,
  );
  if (run.code !== 0) {
    throw new Error(
      `docent ${args.join(' ')} (${tree.label}) exited ${run.code}: ${run.stderr.slice(-2000)}`,
    );
  }
  return run;
}

export interface RunningServer {
  child: ChildProcess;
  pid: number;
  origin: string;
  /** Seconds from spawn to the "docent listening" log line. */
  startSeconds: number;
  /** Log lines about the search index and its cache (messages matching /index|cache/i), as JSON. */
  indexLog: Record<string, unknown>[];
  /** Count of log lines per level name (warn, error, …). */
  levels: Record<string, number>;
}

const PINO_LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** Starts the tree's compiled server (`node scripts/start.mjs`, as `npm start`) on a free port. */
export function startServer(
  tree: Tree,
  databaseUrl: string,
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<RunningServer> {
  const started = performance.now();
  const child = spawnTracked(process.execPath, [...tree.nodeFlags, 'scripts/start.mjs'], {
    cwd: tree.root,
    env: {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DOCENT_SEED_DEMO: 'false',
      DOCENT_DEMO_PAGE: 'false',
      ...env,
    },
  });
  const indexLog: Record<string, unknown>[] = [];
  const levels: Record<string, number> = {};
  let stderrTail = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderrTail = (stderrTail + d).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let done = false;
    const fail = (error: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      killGroup(child, 'SIGKILL');
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`${tree.label} server not listening within ${timeoutMs} ms: ${stderrTail}`)),
      timeoutMs,
    );
    child.once('exit', (code) =>
      fail(new Error(`${tree.label} server exited ${code} before listening: ${stderrTail}`)),
    );
    readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      const level = PINO_LEVELS[Number(entry.level)] ?? String(entry.level);
      levels[level] = (levels[level] ?? 0) + 1;
      const msg = typeof entry.msg === 'string' ? entry.msg : '';
      if (/index|cache/i.test(msg) && indexLog.length < 50_000) indexLog.push(entry);
      if (!done && msg === 'docent listening') {
        done = true;
        clearTimeout(timer);
        resolve({
          child,
          pid: child.pid as number,
          origin: `http://127.0.0.1:${entry.port}`,
          startSeconds: (performance.now() - started) / 1000,
          indexLog,
          levels,
        });
      }
    });
  });
}

/** Bytes on disk of a SQLite database: the file, its -wal and -shm. */
export function sqliteSize(file: string): { db: number; wal: number; shm: number; total: number } {
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  const db = size(file);
  const wal = size(`${file}-wal`);
  const shm = size(`${file}-shm`);
  return { db, wal, shm, total: db + wal + shm };
}
