/**
 * A loopback OpenAI-compatible provider for the endpoint benchmark, in its own process: every chat
 * completion streams `--tokens` short deltas at once (no artificial delay), so what is measured through
 * Docent is Docent's own cost of calling a real provider package and re-streaming its answer.
 * Prints `{"origin": "http://127.0.0.1:<port>"}` on stdout.
 *
 *   node --import tsx bench/loopback-provider.ts [--tokens 20] [--delay 0]
 */
import { parseArgs } from 'node:util';
import { startLoopbackLlm, writeOpenAIStream } from '../src/assistant/providers/testing/loopback-llm.ts';

const { values } = parseArgs({
  options: { tokens: { type: 'string', default: '20' }, delay: { type: 'string', default: '0' } },
});
const count = Number(values.tokens);
const delay = Number(values.delay);
const tokens = Array.from({ length: count }, (_, i) => (i === count - 1 ? 'done [1].' : `word${i} `));

const server = await startLoopbackLlm((request, response) =>
  writeOpenAIStream(
    response,
    { tokens, firstTokenDelayMs: delay, usage: { input: 900, output: count } },
    String(request.body.model),
  ),
);
// The request log is for tests; dropping it keeps this process's memory flat under load.
setInterval(() => {
  server.requests.length = 0;
}, 1_000).unref();
process.stdout.write(`${JSON.stringify({ origin: server.origin })}\n`);
