import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV1 } from 'ai';
import type { ProviderAccess } from '../../config.ts';

/** Anthropic's messages API (`anthropic:<model>`); `ANTHROPIC_BASE_URL` points it at a proxy. */
export function createAnthropicModel(
  modelId: string,
  access: ProviderAccess,
  fetch: typeof globalThis.fetch,
): LanguageModelV1 {
  const provider = createAnthropic({
    // Always passed: the SDK would otherwise read the environment itself, and config.ts is the one reader.
    apiKey: access.apiKey ?? '',
    ...(access.baseUrl ? { baseURL: access.baseUrl } : {}),
    fetch,
  });
  return provider.languageModel(modelId);
}
