/**
 * npm run bench:assistant [-- --seconds N] [--quick] [--no-loopback]
 * Requests per second and time to first byte of POST /v1/assistant/{domain}/message with the built-in
 * answerer (and through a loopback OpenAI-compatible provider, when src/assistant/providers exists) at
 * 1, 16 and 64 concurrent clients, next to a bare Hono route streaming a fixed answer with the same
 * ai@4.3.19 helpers (bench/bare-server.ts). Data: ../shared/eval/claude-docs (its docs are the site, its
 * questions the requests, round-robin). Each server runs in its own process; the load comes from this
 * process over undici (bench/load.ts), closed loop, keep-alive. `npm run bench` includes this.
 */
import os from 'node:os';
import { evalSetDir } from '../src/testing/paths.ts';
import { runEndpointBench } from './lib/endpoint.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const secondsArg = args.indexOf('--seconds');
const seconds = secondsArg >= 0 ? Number(args[secondsArg + 1]) : quick ? 2 : 8;
const concurrencies = quick ? [1, 16] : [1, 16, 64];
const setDir = evalSetDir('claude-docs');

const rounds = quick ? 1 : 4;
const report = await runEndpointBench({
  setDir,
  concurrencies,
  seconds,
  rounds,
  loopback: !args.includes('--no-loopback'),
});
const bare = new Map(report.rows.filter((r) => r.target === 'bare route').map((r) => [r.concurrency, r]));
console.log('assistant endpoint benchmark');
console.log(
  `data: ${setDir} (${report.questions} questions round-robin); ${seconds} s per target and level, in ${rounds} alternating turns; SQLite`,
);
console.log(
  `machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
);
if (report.loopbackNote) console.log(`note: ${report.loopbackNote}`);
console.log('target                     | clients |    rps | share of bare | TTFB p50 / p99 ms     | errors');
for (const row of report.rows) {
  const base = bare.get(row.concurrency)?.result.rps ?? Number.NaN;
  const r = row.result;
  console.log(
    `${row.target.padEnd(26)} | ${String(row.concurrency).padStart(7)} | ${r.rps.toFixed(0).padStart(6)} | ` +
      `${((r.rps / base) * 100).toFixed(0).padStart(11)} % | ${r.ttfbMs.p50.toFixed(1).padStart(8)} / ${r.ttfbMs.p99.toFixed(1).padEnd(10)} | ${r.errors}`,
  );
}
console.log('targets: docent ≥ 50 % of bare throughput; docent TTFB p99 < 50 ms at 16 clients');
