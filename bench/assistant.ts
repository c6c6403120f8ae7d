/**
 * npm run bench:assistant [-- --seconds N] [--quick]
 * Requests per second and time to first byte of POST /v1/assistant/{domain}/message with the built-in
 * answerer at 1, 16 and 64 concurrent clients, next to a bare Hono route streaming a fixed answer with
 * the same ai@4.3.19 helpers (bench/bare-server.ts). Data: ../shared/eval/claude-docs (its docs are the
 * site, its questions the requests, round-robin). Each server runs in its own process; the load comes
 * from this process over undici (bench/load.ts), closed loop, keep-alive.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { bootstrapSite } from '../src/tenancy/bootstrap-site.ts';
import { evalSetDir, repoRoot } from '../src/testing/paths.ts';
import { type LoadResult, runLoad } from './load.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const secondsArg = args.indexOf('--seconds');
const seconds = secondsArg >= 0 ? Number(args[secondsArg + 1]) : quick ? 2 : 8;
const concurrencies = quick ? [1, 16] : [1, 16, 64];
const setDir = evalSetDir('claude-docs');

function startProcess(
  command: string[],
  env: Record<string, string>,
  ready: (line: string) => number | undefined,
) {
  const child = spawn(process.execPath, command, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = new Promise<number>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      const found = ready(line);
      if (found !== undefined) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`${command.join(' ')} exited with ${code}`)));
  });
  return { child, port };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const questions = fs
  .readFileSync(path.join(setDir, 'questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => (JSON.parse(line) as { question: string }).question);
const bodies = questions.map((question, i) =>
  JSON.stringify({
    fp: 'anonymous',
    retrievalPageSize: 5,
    messages: [{ id: `m${i}`, role: 'user', content: question, parts: [{ type: 'text', text: question }] }],
  }),
);

const temporary = await createTemporaryDatabase('sqlite');
const storage = await openStorage(temporary.url);
const { assistantKey } = await bootstrapSite(storage, {
  domain: 'bench',
  docsDir: path.join(setDir, 'docs'),
});
await storage.close();

const docent = startProcess(
  ['--import', 'tsx', 'src/main.ts'],
  { DATABASE_URL: temporary.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DOCENT_SEED_DEMO: 'false' },
  (line) => {
    try {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      return entry.msg === 'docent listening' ? entry.port : undefined;
    } catch {
      return undefined;
    }
  },
);
const bare = startProcess(['--import', 'tsx', 'bench/bare-server.ts'], {}, (line) =>
  /^\d+$/.test(line.trim()) ? Number(line.trim()) : undefined,
);

try {
  const [docentPort, barePort] = await Promise.all([docent.port, bare.port]);
  const rows: { concurrency: number; docent: LoadResult; bare: LoadResult }[] = [];
  for (const concurrency of concurrencies) {
    const common = { bodies, concurrency, durationMs: seconds * 1000 };
    // A short warm-up per target so JIT and the search index load are not in the figures.
    await runLoad({
      ...common,
      origin: `http://127.0.0.1:${docentPort}`,
      path: '/v1/assistant/bench/message',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${assistantKey}` },
      durationMs: 500,
    });
    const d = await runLoad({
      ...common,
      origin: `http://127.0.0.1:${docentPort}`,
      path: '/v1/assistant/bench/message',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${assistantKey}` },
    });
    await runLoad({
      ...common,
      origin: `http://127.0.0.1:${barePort}`,
      path: '/message',
      headers: { 'content-type': 'application/json' },
      durationMs: 500,
    });
    const b = await runLoad({
      ...common,
      origin: `http://127.0.0.1:${barePort}`,
      path: '/message',
      headers: { 'content-type': 'application/json' },
    });
    rows.push({ concurrency, docent: d, bare: b });
  }
  console.log('assistant endpoint benchmark');
  console.log(`data: ${setDir} (${questions.length} questions round-robin); ${seconds} s per run; SQLite`);
  console.log(
    `machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  console.log(
    'clients | docent rps | bare rps | share  | docent TTFB p50/p99 ms | bare TTFB p50/p99 ms | errors',
  );
  for (const { concurrency, docent: d, bare: b } of rows) {
    console.log(
      `${String(concurrency).padStart(7)} | ${d.rps.toFixed(0).padStart(10)} | ${b.rps.toFixed(0).padStart(8)} | ${((d.rps / b.rps) * 100).toFixed(0).padStart(4)} % | ` +
        `${d.ttfbMs.p50.toFixed(1).padStart(10)} / ${d.ttfbMs.p99.toFixed(1).padEnd(9)} | ${b.ttfbMs.p50.toFixed(1).padStart(8)} / ${b.ttfbMs.p99.toFixed(1).padEnd(9)} | ${d.errors + b.errors}`,
    );
  }
  console.log('targets: docent ≥ 50 % of bare throughput; docent TTFB p99 < 50 ms at 16 clients');
} finally {
  await Promise.all([stop(docent.child), stop(bare.child)]);
  await temporary.remove();
}
