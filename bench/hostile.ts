/**
 * npm run bench:hostile [-- <case name> …]
 *
 * What each pathological docs folder costs to ingest with the ingestion limits (src/ingest/ingest-limits.ts)
 * and the page workers' time budget and heap cap: wall-clock seconds and the peak resident memory
 * (VmHWM, worker threads included) of a process that does nothing else, next to the baseline of a
 * fine folder and to what the input cost before the limits. Each case runs in its own process
 * (bench/hostile-case.ts) on a fresh SQLite database.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { repoRoot } from '../src/testing/paths.ts';
import { HOSTILE_FOLDERS } from './lib/hostile-folders.ts';

const wanted = process.argv.slice(2);
const cases = wanted.length === 0 ? HOSTILE_FOLDERS : HOSTILE_FOLDERS.filter((f) => wanted.includes(f.name));
const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(0)} MiB`;

console.log(`hostile docs folders: ${os.cpus().length} cores, Node ${process.version}, SQLite, tsx`);
console.log('| case | input | outcome | seconds | peak RSS | before the limits |');
console.log('|---|---|---|---|---|---|');
for (const folder of cases) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/hostile-case.ts', folder.name], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  let cells: string[];
  try {
    const r = JSON.parse(line) as {
      status: string;
      pages?: number;
      chunks?: number;
      warnings?: string[];
      error?: string;
      seconds: number;
      peakRssBytes: number;
    };
    const outcome =
      r.status === 'success'
        ? `${r.pages} pages, ${r.chunks} chunks${r.warnings?.length ? `; ${r.warnings.map((w) => w.slice(0, 140)).join('; ')}` : ''}`
        : `failed: ${r.error}`;
    cells = [outcome, r.seconds.toFixed(2), mib(r.peakRssBytes)];
  } catch {
    cells = [
      `process ended (exit ${run.status ?? run.signal}): ${run.stderr.trim().split('\n').pop() ?? ''}`,
      '—',
      '—',
    ];
  }
  console.log(`| ${folder.name} | ${folder.what} | ${cells.join(' | ')} | ${folder.before} |`);
}
