import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV1 } from 'ai';
import type { ProviderAccess } from '../../config.ts';

/** OpenAI's chat completions API (`openai:<model>`); `OPENAI_BASE_URL` points it at a proxy. */
export function createOpenAIModel(
  modelId: string,
  access: ProviderAccess,
  fetch: typeof globalThis.fetch,
): LanguageModelV1 {
  const provider = createOpenAI({
    // Always passed: the SDK would otherwise read the environment itself, and config.ts is the one reader.
    apiKey: access.apiKey ?? '',
    ...(access.baseUrl ? { baseURL: access.baseUrl } : {}),
    // `strict` sends `stream_options.include_usage`, so streamed answers report token usage.
    compatibility: 'strict',
    fetch,
  });
  return provider.chat(modelId);
}
