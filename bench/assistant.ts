/**
 * npm run bench:assistant [-- --seconds N] [--quick] [--no-loopback]
 * Requests per second and time to first byte of the assistant endpoint on both wires, v1
 * (POST /v1/assistant/{domain}/message, AI SDK 4 data stream) and v2 (POST /v2/assistant/{domain}/message,
 * AI SDK 5+ UI message stream over SSE, a new chat id per request), sent to the same Docent process with
 * the built-in answerer (and to one more through a loopback OpenAI-compatible provider, when
 * src/assistant/providers exists) at 1, 16 and 64 concurrent clients, next to bare Hono routes streaming a
 * fixed answer with the SDKs' own helpers (bench/bare-server.ts: ai@4.3.19 for v1, ai@5 for v2). Each row's
 * share of bare is against the bare route of its own wire; for every level, v2's throughput is also given
 * as a share of v1's on the same server (target v2 ≥ 90 % of v1). TTFB is the first body byte on both
 * wires. Data: ../shared/eval/claude-docs (its docs are the site, its questions the requests, round-robin,
 * the same on both wires). Each server runs in its own process; the load comes from this process over
 * undici (bench/load.ts), closed loop, keep-alive, all targets taking turns. `npm run bench` includes this.
 */
import os from 'node:os';
import { evalSetDir } from '../src/testing/paths.ts';
import { bareOf, runEndpointBench, V2_SHARE_TARGET, wireShares } from './lib/endpoint.ts';

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
const rps = new Map(report.rows.map((r) => [`${r.target}@${r.concurrency}`, r.result.rps]));
const wireOf = new Map(report.targets.map((t) => [t.name, t]));
console.log('assistant endpoint benchmark');
console.log(
  `data: ${setDir} (${report.questions} questions round-robin, the same on both wires); ${seconds} s per target and level, in ${rounds} alternating turns; SQLite`,
);
console.log(
  `machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
);
if (report.loopbackNote) console.log(`note: ${report.loopbackNote}`);
console.log(
  'target                        | wire | clients |    rps | share of bare | TTFB p50 / p99 ms     | errors',
);
for (const row of report.rows) {
  const target = wireOf.get(row.target);
  const base = target ? (rps.get(`${bareOf(target)}@${row.concurrency}`) ?? Number.NaN) : Number.NaN;
  const r = row.result;
  console.log(
    `${row.target.padEnd(29)} | ${(target?.wire ?? 'v1').padEnd(4)} | ${String(row.concurrency).padStart(7)} | ${r.rps.toFixed(0).padStart(6)} | ` +
      `${((r.rps / base) * 100).toFixed(0).padStart(11)} % | ${r.ttfbMs.p50.toFixed(1).padStart(8)} / ${r.ttfbMs.p99.toFixed(1).padEnd(10)} | ${r.errors}`,
  );
}
console.log('share of bare: against the bare route of the same wire (v1: bare route, v2: bare v2 route)');
console.log(`v2 against v1 on the same server (target: v2 ≥ ${V2_SHARE_TARGET * 100} % of v1 throughput):`);
for (const s of wireShares(report)) {
  console.log(
    `  ${s.v2.padEnd(29)} @ ${String(s.concurrency).padStart(2)}: ${(s.share * 100).toFixed(0).padStart(3)} % of ${s.v1} ` +
      `(${s.v2Result.rps.toFixed(0)} vs ${s.v1Result.rps.toFixed(0)} req/s) · TTFB p50 ${s.v2Result.ttfbMs.p50.toFixed(1)} vs ${s.v1Result.ttfbMs.p50.toFixed(1)} ms, ` +
      `p99 ${s.v2Result.ttfbMs.p99.toFixed(1)} vs ${s.v1Result.ttfbMs.p99.toFixed(1)} ms`,
  );
}
console.log(
  'targets: docent ≥ 50 % of bare throughput; docent TTFB p99 < 50 ms at 16 clients; ' +
    `v2 ≥ ${V2_SHARE_TARGET * 100} % of v1 (bare v2 vs bare route: the SDKs' own difference, for reference)`,
);
