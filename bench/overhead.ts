/**
 * npm run bench:overhead [-- --rounds 4] [--requests 1200] [--requests-1 120] [--streams 1000] [--model builtin]
 *
 * The time to first token (TTFT) Docent adds over a model provider. A loopback OpenAI-compatible provider
 * (this script with `--role provider`, its own process) sends its first token after `--delay` ms and then
 * `--tokens` more `--token-delay` ms apart; one Docent process (the build, as `npm start` runs it; SQLite, the repository's own
 * docs/ as the site) is pointed at it. The same provider is then asked three ways, in alternating blocks
 * at 1 and at 32 concurrent clients (`--rounds` rounds, the order of the three rotating so a drift of the
 * machine's speed weighs on each alike, after one unmeasured block per side and level):
 * - direct: a chat completion straight from the provider; first token = first `"content":"…"` delta;
 * - v1: POST /v1/assistant/docs/message on Docent (AI SDK 4 data stream); first token = first `0:` part;
 * - v2: POST /v2/assistant/docs/message on the same Docent process (AI SDK 5+ UI message stream over SSE,
 *   a new chat id per request, so each answer is also recorded for resuming); first token = the first
 *   `data: {"type":"text-delta"…}` chunk's bytes.
 * Added TTFT = via-Docent p50 (and p99) − direct p50 (p99), for v1 and v2 against the same direct answers
 * (target < 5 ms p50 on both wires), with the added p50 of each round and Docent's CPU per request per
 * wire (from /proc). Then the provider path's CPU per answer with no Docent server around it. With
 * `--streams N`: N concurrent slow streams through v1, their errors and Docent's peak RSS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { Agent, type Dispatcher, request } from 'undici';
import { createModelProvider } from '../src/assistant/providers/create-model-provider.ts';
import { readModelAnswer } from '../src/assistant/providers/fast-chat-stream.ts';
import { HOSTED_PROVIDERS } from '../src/assistant/providers/provider-models.ts';
import { resilientFetch } from '../src/assistant/providers/resilient-fetch.ts';
import { startLoopbackLlm, writeOpenAIStream } from '../src/assistant/providers/testing/loopback-llm.ts';
import { BUILTIN_MODEL_CONFIG, type ModelConfig } from '../src/config.ts';
import { openStorage } from '../src/storage/database.ts';
import { bootstrapSite } from '../src/tenancy/bootstrap-site.ts';
import type { Site } from '../src/tenancy/sites.ts';
import { ensureBuild, startNodeScript, startScriptNodeFlags } from './lib/processes.ts';

const { values } = parseArgs({
  options: {
    role: { type: 'string', default: 'bench' },
    delay: { type: 'string', default: '50' },
    /**
     * Gap between tokens. 10 ms is 100 tokens/s, the fast end of hosted models (most stream 50-150);
     * 0 sends them as fast as the provider's timers go (about 1 ms apart), which makes this a
     * throughput test of the whole machine instead.
     */
    'token-delay': { type: 'string', default: '10' },
    tokens: { type: 'string', default: '20' },
    /** Answers measured at 32 clients (and as many straight from the provider), over all rounds. */
    requests: { type: 'string', default: '1200' },
    /** At 1 client each answer takes its whole streaming time: fewer answers keep the run short. */
    'requests-1': { type: 'string', default: '120' },
    /**
     * Direct and via-Docent answers alternate in this many blocks each, so that the machine's speed
     * drifting during the run (it does, on a shared VM) weighs on both sides alike.
     */
    rounds: { type: 'string', default: '4' },
    streams: { type: 'string' },
    /** `builtin` measures Docent without a provider call (what the request path costs by itself). */
    model: { type: 'string', default: 'openai-compatible:bench-model' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});

const repoRoot = path.resolve(import.meta.dirname, '..');
const QUESTIONS = [
  'How do I install Docent?',
  'How do I create an API key?',
  'What does the search endpoint return?',
  'How do I configure the database?',
  'How do I ingest my docs folder?',
  'What are the rate limits?',
];

/**
 * The load's HTTP client: undici's `request` on one pool, the same for both targets. It is lighter than
 * `fetch`, and the load shares the machine's two cores with the provider and Docent.
 */
const client = new Agent({ connections: 2_048, keepAliveTimeout: 30_000 });
/** v2 requests sent so far: each one's chat id, so no request replaces another's recording. */
let chats = 0;

if (values.role === 'provider') await runProvider();
else await runBench();

/** The loopback provider: headers at once, the first token after `--delay`, then `--tokens` more. */
async function runProvider(): Promise<void> {
  const delay = Number(values.delay);
  const tokenDelay = Number(values['token-delay']);
  const count = Number(values.tokens);
  const tokens = Array.from({ length: count }, (_, i) => (i === count - 1 ? 'done [1].' : `word${i} `));
  const server = await startLoopbackLlm((req, res) =>
    writeOpenAIStream(
      res,
      { tokens, firstTokenDelayMs: delay, tokenDelayMs: tokenDelay, usage: { input: 900, output: count } },
      String(req.body.model),
    ),
  );
  // The bench only needs the address; keeping no request log bounds this process's memory too.
  setInterval(() => {
    server.requests.length = 0;
  }, 1_000).unref();
  process.stdout.write(`${JSON.stringify({ origin: server.origin })}\n`);
}

async function runBench(): Promise<void> {
  const delay = Number(values.delay);
  const streams = values.streams === undefined ? undefined : Number(values.streams);
  // The 1,000-stream run keeps its own slow pace (100 ms apart) unless one is given.
  const tokenDelay =
    streams === undefined || process.argv.includes('--token-delay') ? Number(values['token-delay']) : 100;

  const provider = await startNodeScript(
    [
      'bench/overhead.ts',
      '--role',
      'provider',
      '--delay',
      String(delay),
      '--token-delay',
      String(tokenDelay),
      '--tokens',
      String(values.tokens),
    ],
    {},
    (line) => (JSON.parse(line) as { origin?: string }).origin,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-overhead-'));
  const databaseUrl = `sqlite:${path.join(dir, 'docent.db')}`;
  const storage = await openStorage(databaseUrl);
  const { assistantKey } = await bootstrapSite(storage, {
    domain: 'docs',
    docsDir: path.join(repoRoot, 'docs'),
  });
  await storage.close();

  ensureBuild();
  const docent = await startNodeScript(
    ['scripts/start.mjs'],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DOCENT_SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      DOCENT_MODEL: values.model,
      DOCENT_MODEL_BASE_URL: `${provider.value}/v1`,
    },
    (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      return entry.msg === 'docent listening' ? `http://127.0.0.1:${entry.port}` : undefined;
    },
    60_000,
    // `--profile <dir>` writes a CPU profile of the Docent process there (read it in Chrome DevTools).
    [
      ...startScriptNodeFlags(),
      ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : []),
    ],
  );

  const direct = (): Promise<number> => directTtft(provider.value);
  const viaDocent = (i: number): Promise<number> =>
    docentTtft(docent.value, assistantKey, QUESTIONS[i % QUESTIONS.length] ?? '');
  const viaDocentV2 = (i: number): Promise<number> =>
    docentV2Ttft(docent.value, assistantKey, QUESTIONS[i % QUESTIONS.length] ?? '');

  try {
    const pace =
      tokenDelay > 0
        ? `${Math.round(1000 / tokenDelay)} tokens/s (${tokenDelay} ms apart)`
        : 'with no delay (about 1 ms apart)';
    console.log(
      `node ${process.version}, ${os.cpus().length} CPUs; loopback provider (OpenAI SSE): first token after ${delay} ms, ` +
        `then ${values.tokens} tokens ${pace}; provider, Docent and this client share the machine`,
    );
    if (streams === undefined) {
      // Warm-up: module loading, JIT, connection pools and the search index cache.
      await runConcurrent(20, 4, () => direct());
      await runConcurrent(40, 8, (i) => viaDocent(i));
      await runConcurrent(40, 8, (i) => viaDocentV2(i));
      // How long one answer takes the provider: the clients' start times are spread over it.
      const answerMs = delay + (Number(values.tokens) - 1) * tokenDelay;
      const rounds = Math.max(1, Number(values.rounds));
      /** The sides' order per round: over each two rounds every side's mean position is the middle. */
      const orders = [
        ['direct', 'docent', 'v2'],
        ['v2', 'docent', 'direct'],
        ['direct', 'v2', 'docent'],
        ['docent', 'v2', 'direct'],
      ] as const;
      const addedP50 = new Map<number, { v1: number; v2: number }>();
      for (const concurrency of [1, 32]) {
        const requests = Number(concurrency === 1 ? values['requests-1'] : values.requests);
        const block = Math.max(1, Math.round(requests / rounds));
        const d: number[] = [];
        const v: number[] = [];
        const v2: number[] = [];
        const addedPerRound: number[] = [];
        const addedPerRoundV2: number[] = [];
        let docentCpuMs = 0;
        let docentV2CpuMs = 0;
        // Unmeasured, on all sides: a level's first answers open that many connections (the client's to
        // Docent and the provider, Docent's to the provider), which steady use at the level does not.
        await runConcurrent(concurrency * 4, concurrency, () => direct(), answerMs);
        await runConcurrent(concurrency * 4, concurrency, (i) => viaDocent(i), answerMs);
        await runConcurrent(concurrency * 4, concurrency, (i) => viaDocentV2(i), answerMs);
        for (let round = 0; round < rounds; round++) {
          // Which side goes first rotates too.
          const sides = orders[round % orders.length] ?? orders[0];
          let directP50 = 0;
          let docentP50 = 0;
          let docentV2P50 = 0;
          for (const side of sides) {
            if (side === 'direct') {
              const times = await runConcurrent(block, concurrency, () => direct(), answerMs);
              d.push(...times);
              directP50 = percentile(times, 50);
            } else if (side === 'docent') {
              const cpuBefore = cpuMsOf(docent.child.pid);
              const times = await runConcurrent(block, concurrency, (i) => viaDocent(i), answerMs);
              docentCpuMs += cpuMsOf(docent.child.pid) - cpuBefore;
              v.push(...times);
              docentP50 = percentile(times, 50);
            } else {
              const cpuBefore = cpuMsOf(docent.child.pid);
              const times = await runConcurrent(block, concurrency, (i) => viaDocentV2(i), answerMs);
              docentV2CpuMs += cpuMsOf(docent.child.pid) - cpuBefore;
              v2.push(...times);
              docentV2P50 = percentile(times, 50);
            }
          }
          addedPerRound.push(docentP50 - directP50);
          addedPerRoundV2.push(docentV2P50 - directP50);
        }
        const p = (xs: number[], q: number) => percentile(xs, q).toFixed(1);
        console.log(
          `concurrency ${String(concurrency).padStart(2)}: TTFT direct p50 ${p(d, 50)} ms p99 ${p(d, 99)} ms · ` +
            `via Docent p50 ${p(v, 50)} ms p99 ${p(v, 99)} ms · added p50 ${(percentile(v, 50) - percentile(d, 50)).toFixed(1)} ms ` +
            `p99 ${(percentile(v, 99) - percentile(d, 99)).toFixed(1)} ms (p50 per round ${addedPerRound.map((x) => x.toFixed(1)).join(', ')}) · ` +
            `Docent CPU ${(docentCpuMs / v.length).toFixed(1)} ms/request (${v.length} requests each, ${rounds} rounds)`,
        );
        // v2 against the same direct answers: the same line, for POST /v2/… on the same Docent process.
        console.log(
          `concurrency ${String(concurrency).padStart(2)} v2: ` +
            `via Docent v2 p50 ${p(v2, 50)} ms p99 ${p(v2, 99)} ms · added p50 ${(percentile(v2, 50) - percentile(d, 50)).toFixed(1)} ms ` +
            `p99 ${(percentile(v2, 99) - percentile(d, 99)).toFixed(1)} ms (p50 per round ${addedPerRoundV2.map((x) => x.toFixed(1)).join(', ')}) · ` +
            `Docent CPU ${(docentV2CpuMs / v2.length).toFixed(1)} ms/request (${v2.length} requests, first token = first text-delta chunk)`,
        );
        addedP50.set(concurrency, {
          v1: percentile(v, 50) - percentile(d, 50),
          v2: percentile(v2, 50) - percentile(d, 50),
        });
      }
      console.log(
        `added TTFT p50, v1 vs v2 (target < 5 ms p50 on both): ${[...addedP50]
          .map(
            ([c, a]) => `${c} client${c === 1 ? '' : 's'} v1 ${a.v1.toFixed(1)} ms, v2 ${a.v2.toFixed(1)} ms`,
          )
          .join(' · ')}`,
      );
      // Where the provider path's CPU goes, measured in this process against the same loopback provider
      // with no Docent server around it: Docent's provider path (the package's model wrapped with the
      // site's prompt and settings, the package sending the request and Docent decoding the stream:
      // fast-chat-stream.ts), the bare package model on the same fetch decoding its own stream, and
      // merely receiving the same bytes. Issue 15 keeps a decoder of Docent's only while the package's
      // request and decoding (bare package minus bytes) costs over 1 ms.
      const answers = 200;
      const docentPath = await providerPathCpu(provider.value, answers, 32, 'docent');
      const packagePath = await providerPathCpu(provider.value, answers, 32, 'package');
      const raw = await rawStreamCpu(provider.value, answers, 32);
      console.log(
        `provider path alone (openai-compatible, ${values.tokens} tokens, read to the end, 32 at a time), CPU per answer: ` +
          `Docent's (package request, Docent's decoding) ${docentPath.toFixed(2)} ms · the bare package model ` +
          `${packagePath.toFixed(2)} ms · the bytes read with undici and nothing else ${raw.toFixed(2)} ms · ` +
          `the package's request and decoding ${(packagePath - raw).toFixed(2)} ms (a decoder of Docent's own would need it above 1 ms)`,
      );
    } else {
      const baseline = rssOf(docent.child.pid);
      const started = performance.now();
      let peakSampled = baseline.rss;
      const sampler = setInterval(() => {
        peakSampled = Math.max(peakSampled, rssOf(docent.child.pid).rss);
      }, 100);
      const outcomes = await Promise.all(
        Array.from({ length: streams }, (_, i) =>
          fullStream(docent.value, assistantKey, QUESTIONS[i % QUESTIONS.length] ?? ''),
        ),
      );
      clearInterval(sampler);
      const after = rssOf(docent.child.pid);
      const failed = outcomes.filter((o) => o !== 'ok');
      console.log(
        `${streams} concurrent streams (${values.tokens} tokens, ${tokenDelay} ms apart): ${streams - failed.length} complete, ` +
          `${failed.length} failed in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      if (failed.length > 0) console.log(`failures (first 5): ${failed.slice(0, 5).join(' | ')}`);
      console.log(
        `Docent RSS: ${mb(baseline.rss)} before, peak ${mb(Math.max(after.peak, peakSampled))} (VmHWM), ${mb(after.rss)} after`,
      );
      if (failed.length > 0) process.exitCode = 1;
    }
  } finally {
    await client.destroy();
    docent.child.kill('SIGTERM');
    provider.child.kill('SIGTERM');
    if (values.keep) console.log(`database kept: ${databaseUrl}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * CPU (all threads of this process) per answer of a streamed answer through the openai-compatible
 * provider: `docent` is the model the server uses (createModelProvider) read as answer parts, `package`
 * the package's bare model on the same kind of fetch, its stream read to the end.
 */
async function providerPathCpu(
  origin: string,
  answers: number,
  concurrency: number,
  path: 'docent' | 'package',
): Promise<number> {
  const config: ModelConfig = {
    ...BUILTIN_MODEL_CONFIG,
    default: { provider: 'openai-compatible', model: 'bench-model' },
    openaiCompatible: { apiKey: null, baseUrl: `${origin}/v1` },
  };
  const models = createModelProvider(config);
  const site = { name: 'Docs', model: null, instructions: null } as unknown as Site;
  const packageModel = await HOSTED_PROVIDERS['openai-compatible'].create(
    'bench-model',
    config,
    resilientFetch({ connectTimeoutMs: 30_000, stallTimeoutMs: 30_000, maxRetries: 0 }),
  );
  const once = async (): Promise<number> => {
    const model =
      path === 'docent' ? models({ site, sources: [], context: [], currentPath: null }) : packageModel;
    const prompt: LanguageModelV3Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'How do I install Docent?' }] },
    ];
    let parts = 0;
    if (path === 'docent') for await (const _ of await readModelAnswer(model, { prompt })) parts++;
    else for await (const _ of (await model.doStream({ prompt })).stream) parts++;
    return parts;
  };
  return cpuPerTask(answers, concurrency, once);
}

/** CPU (all threads of this process) per answer of reading the provider's stream bytes, and nothing else. */
async function rawStreamCpu(origin: string, answers: number, concurrency: number): Promise<number> {
  const once = async (): Promise<number> => {
    const response = await askProvider(origin);
    let bytes = 0;
    for await (const chunk of response.body) bytes += (chunk as Buffer).byteLength;
    return bytes;
  };
  return cpuPerTask(answers, concurrency, once);
}

async function cpuPerTask(total: number, concurrency: number, task: () => Promise<number>): Promise<number> {
  await runConcurrent(20, 4, () => task());
  const before = process.cpuUsage();
  await runConcurrent(total, concurrency, () => task());
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / total;
}

/** Time until the first content delta straight from the provider. */
async function directTtft(origin: string): Promise<number> {
  const started = performance.now();
  const response = await askProvider(origin);
  return untilFirst(response.body, started, /"content":"[^"]/);
}

/** One streamed chat completion straight from the loopback provider. */
function askProvider(origin: string): Promise<Dispatcher.ResponseData> {
  return request(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'bench-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    dispatcher: client,
  });
}

/** One question to Docent's assistant endpoint, as a reader's client sends it. */
function askDocent(baseUrl: string, key: string, question: string): Promise<Dispatcher.ResponseData> {
  return request(`${baseUrl}/v1/assistant/docs/message`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({
      fp: 'anonymous',
      messages: [{ id: 'u1', role: 'user', content: question, parts: [{ type: 'text', text: question }] }],
    }),
    dispatcher: client,
  });
}

/** One question to Docent's v2 endpoint, as `DefaultChatTransport` sends it (a new chat id each time). */
function askDocentV2(baseUrl: string, key: string, question: string): Promise<Dispatcher.ResponseData> {
  return request(`${baseUrl}/v2/assistant/docs/message`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({
      id: `overhead-${chats++}`,
      trigger: 'submit-message',
      fp: 'anonymous',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: question }] }],
    }),
    dispatcher: client,
  });
}

/** Time until the first `text-delta` chunk through Docent's v2 endpoint. */
async function docentV2Ttft(baseUrl: string, key: string, question: string): Promise<number> {
  const started = performance.now();
  const response = await askDocentV2(baseUrl, key, question);
  if (response.statusCode !== 200)
    throw new Error(`Docent v2 answered ${response.statusCode}: ${await response.body.text()}`);
  return untilFirst(response.body, started, /(^|\n)data: \{"type":"text-delta"/);
}

/** Time until the first `0:` text part through Docent. */
async function docentTtft(baseUrl: string, key: string, question: string): Promise<number> {
  const started = performance.now();
  const response = await askDocent(baseUrl, key, question);
  if (response.statusCode !== 200)
    throw new Error(`Docent answered ${response.statusCode}: ${await response.body.text()}`);
  return untilFirst(response.body, started, /(^|\n)0:/);
}

/** Reads until `pattern` shows up, records the time, then drains the rest (the stream must finish cleanly). */
async function untilFirst(body: AsyncIterable<Buffer>, started: number, pattern: RegExp): Promise<number> {
  let seen = '';
  let at: number | undefined;
  for await (const chunk of body) {
    if (at === undefined) {
      seen += chunk.toString('utf8');
      if (pattern.test(seen)) at = performance.now() - started;
    }
  }
  if (at === undefined) throw new Error(`no token in: ${seen.slice(0, 300)}`);
  return at;
}

/** One whole answer through Docent: 'ok' when it ended with `d:` and had no `3:`. */
async function fullStream(baseUrl: string, key: string, question: string): Promise<string> {
  try {
    const response = await askDocent(baseUrl, key, question);
    const text = await response.body.text();
    if (response.statusCode !== 200) return `HTTP ${response.statusCode}: ${text.slice(0, 200)}`;
    if (/(^|\n)3:/.test(text)) return `error part: ${text.match(/(^|\n)3:(.*)/)?.[2]}`;
    if (!/(^|\n)d:/.test(text)) return 'no finish part';
    return 'ok';
  } catch (error) {
    return `client error: ${error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error)}`;
  }
}

/**
 * `concurrency` clients, each sending its next request when its last one has finished. With `phaseMs`,
 * client k starts k/concurrency of it late. Every answer here takes the same time, so clients that start
 * together stay in lockstep and arrive as one burst per answer: the latency would measure the burst
 * (the 32nd request of a burst waits behind 31 others), not how readers arrive.
 */
async function runConcurrent(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<number>,
  phaseMs = 0,
): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, k) => {
      if (phaseMs > 0) await new Promise((resolve) => setTimeout(resolve, (k / concurrency) * phaseMs));
      while (next < total) {
        const i = next++;
        out.push(await task(i));
      }
    }),
  );
  return out;
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((q / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Resident memory of a process from /proc (Linux): now and its peak (VmHWM), in bytes. */
function rssOf(pid: number | undefined): { rss: number; peak: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(status.match(new RegExp(`${name}:\\s+(\\d+) kB`))?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

/** CPU time (user + system) a process has used, from /proc (Linux), in ms; 0 elsewhere. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of the file, in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}
