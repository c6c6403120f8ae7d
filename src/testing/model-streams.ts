import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';

/**
 * The parts of a model's stream that answers with `deltas` and then finishes normally, as a provider
 * package would decode them, for mock models in tests (`MockLanguageModelV3` with
 * `simulateReadableStream`).
 */
export function scriptedModelStream(
  deltas: readonly string[],
  usage: { input: number; output: number } = { input: 1, output: 1 },
): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...deltas.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't', delta })),
    { type: 'text-end', id: 't' },
    {
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: {
          total: usage.input,
          noCache: usage.input,
          cacheRead: undefined,
          cacheWrite: undefined,
        },
        outputTokens: { total: usage.output, text: usage.output, reasoning: undefined },
      },
    },
  ];
}
