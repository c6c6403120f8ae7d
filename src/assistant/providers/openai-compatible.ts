import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV1 } from 'ai';
import type { ProviderAccess } from '../../config.ts';

/**
 * Any server speaking OpenAI's chat completions API (`openai-compatible:<model>`): Ollama
 * (`http://127.0.0.1:11434/v1`), vLLM, llama.cpp server, LM Studio, OpenRouter. The key is optional:
 * local servers usually take none.
 */
export function createOpenAICompatibleModel(
  modelId: string,
  access: ProviderAccess,
  fetch: typeof globalThis.fetch,
): LanguageModelV1 {
  if (!access.baseUrl) throw new Error('openai-compatible needs DOCENT_MODEL_BASE_URL');
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: access.baseUrl,
    ...(access.apiKey ? { apiKey: access.apiKey } : {}),
    fetch,
  });
  // Servers that do not know `stream_options` ignore it (Ollama, vLLM, llama.cpp and LM Studio honour it).
  return provider.chatModel(modelId, {}, { includeUsage: true });
}
