/**
 * npm run bench:resume [-- --answers N --rounds R --batch B]
 * What recording a v2 answer for resuming costs, per answer, in one process: Docent's in-process recorder
 * (src/streams/in-process-resumable-streams.ts, what a server without Redis runs) against the
 * `resumable-stream` package over an in-process pub/sub (what it ran before; with Redis it still does).
 * Each answer is recorded as the v2 route records it: 20 chunks of an SSE answer written, then ended, in
 * batches of B answers at once (default 100; 1 is a server answering one reader at a time); nobody resumes. The two take turns for R rounds of N answers; prints CPU
 * and wall time per answer per round and the median. Asserts nothing.
 */

import { createInProcessResumableStreams } from '../src/streams/in-process-resumable-streams.ts';
import { MemoryPubSub } from '../src/streams/memory-pub-sub.ts';
import {
  createResumableStreams,
  type Gone,
  type ResumableStreams,
} from '../src/streams/resumable-streams.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(args[args.indexOf(name) + 1] ?? 0) || fallback;
const answers = option('--answers', 20_000);
const rounds = option('--rounds', 4);
const BATCH = option('--batch', 100);
const CHUNKS = Array.from(
  { length: 20 },
  (_, i) => `data: {"type":"text-delta","id":"txt_0","delta":"word ${i} "}\n\n`,
);
/** A reader who stays: a connection of its own per answer, as each request has. */
const stays = (): Gone => ({ aborted: false, signal: new AbortController().signal });

async function run(streams: ResumableStreams): Promise<{ cpuUs: number; wallUs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let done = 0; done < answers; done += BATCH) {
    const batch = Array.from({ length: BATCH }, (_, i) => streams.record(`site:chat-${done + i}`, stays()));
    for (const chunk of CHUNKS) for (const recorded of batch) recorded.write(chunk);
    for (const recorded of batch) recorded.end();
    // Lets the package's promise chains run, as the event loop would between answers.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(cpu);
  return {
    cpuUs: (used.user + used.system) / answers,
    wallUs: ((performance.now() - started) * 1_000) / answers,
  };
}

const sides: [string, () => ResumableStreams][] = [
  ['in-process recorder', () => createInProcessResumableStreams()],
  ['resumable-stream package (memory pub/sub)', () => createResumableStreams(new MemoryPubSub())],
];
const results = new Map<string, { cpuUs: number; wallUs: number }[]>(sides.map(([name]) => [name, []]));
console.log(
  `resume recording benchmark: ${answers} answers of ${CHUNKS.length} chunks per round, ${BATCH} at once, ${rounds} rounds, Node ${process.version}`,
);
await run(sides[0]?.[1]() as ResumableStreams);
await run(sides[1]?.[1]() as ResumableStreams);
for (let round = 0; round < rounds; round++) {
  for (const [name, make] of round % 2 === 0 ? sides : [...sides].reverse()) {
    const result = await run(make());
    results.get(name)?.push(result);
    console.log(
      `round ${round + 1}  ${name.padEnd(44)} CPU ${result.cpuUs.toFixed(1).padStart(6)} µs/answer  wall ${result.wallUs.toFixed(1).padStart(6)} µs/answer`,
    );
  }
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
for (const [name, list] of results)
  console.log(
    `median  ${name.padEnd(44)} CPU ${median(list.map((r) => r.cpuUs))
      .toFixed(1)
      .padStart(6)} µs/answer  wall ${median(list.map((r) => r.wallUs))
      .toFixed(1)
      .padStart(6)} µs/answer`,
  );
