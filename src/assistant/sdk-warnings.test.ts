import { streamText } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scriptedModelStream } from '../testing/model-streams.ts';
import { logSdkWarnings } from './sdk-warnings.ts';

describe("the AI SDK's warnings", () => {
  afterEach(() => {
    delete (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS;
    vi.restoreAllMocks();
  });

  it('go to the server log, each distinct one once, and not to the console', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const consoleInfo = vi.spyOn(console, 'info').mockImplementation(() => {});
    logSdkWarnings(logger);
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start', warnings: [{ type: 'unsupported', feature: 'temperature' }] },
            ...scriptedModelStream(['Hello.']).slice(1),
          ],
        }),
      }),
    });
    for (let i = 0; i < 3; i++) {
      const result = streamText({ model, prompt: 'Hi', temperature: 0.2 });
      await result.consumeStream();
    }
    expect(consoleWarn).not.toHaveBeenCalled();
    expect(consoleInfo).not.toHaveBeenCalled();
    const warnings = lines.filter((line) => line.msg === 'AI SDK warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ warning: { type: 'unsupported', feature: 'temperature' } });
  });
});
