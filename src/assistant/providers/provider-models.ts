import type { LanguageModelV3, SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { ModelConfig } from '../../config.ts';
import type { ModelProviderName } from './model-spec.ts';

export type HostedProvider = Exclude<ModelProviderName, 'builtin'>;

/** How hard a reasoning model thinks before it answers; `null` leaves the model's default. */
export type ReasoningEffort = 'low' | 'medium' | 'high';

/** Thinking budgets in tokens, for providers that take a budget rather than a level. */
const THINKING_BUDGET: Record<ReasoningEffort, number> = { low: 1_024, medium: 4_096, high: 16_384 };

interface HostedProviderDefinition {
  /** Whether this server has what the provider needs (credentials, or the compatible server's address). */
  configured(config: ModelConfig): boolean;
  /** The package's model for `modelId`; its package is loaded on first use, so unused ones cost nothing. */
  create(modelId: string, config: ModelConfig, fetch: typeof globalThis.fetch): Promise<LanguageModelV3>;
  /** A reasoning effort as this provider's options for `modelId`. */
  reasoning(effort: ReasoningEffort, modelId: string): SharedV3ProviderOptions;
}

// API keys are always passed (as '' when unset): the packages would otherwise read the environment
// themselves, and config.ts is the one reader.
const openaiSettings = (config: ModelConfig, fetch: typeof globalThis.fetch) => ({
  apiKey: config.openai.apiKey ?? '',
  ...(config.openai.baseUrl ? { baseURL: config.openai.baseUrl } : {}),
  fetch,
});

/**
 * The providers Docent can call, each through its AI SDK package, which speaks the provider's API and
 * decodes its stream. Every package is given Docent's `fetch` (resilient-fetch.ts): the transport,
 * timeouts and retries are the same for all.
 */
export const HOSTED_PROVIDERS: Record<HostedProvider, HostedProviderDefinition> = {
  openai: {
    configured: (config) => config.openai.apiKey !== null,
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/openai')).createOpenAI(openaiSettings(config, fetch)).chat(modelId),
    reasoning: (effort) => ({ openai: { reasoningEffort: effort } }),
  },
  'openai-responses': {
    configured: (config) => config.openai.apiKey !== null,
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/openai')).createOpenAI(openaiSettings(config, fetch)).responses(modelId),
    reasoning: (effort) => ({ openai: { reasoningEffort: effort } }),
  },
  anthropic: {
    configured: (config) => config.anthropic.apiKey !== null,
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/anthropic')).createAnthropic({
        apiKey: config.anthropic.apiKey ?? '',
        ...(config.anthropic.baseUrl ? { baseURL: config.anthropic.baseUrl } : {}),
        fetch,
      })(modelId),
    reasoning: (effort) => ({
      anthropic: { thinking: { type: 'enabled', budgetTokens: THINKING_BUDGET[effort] } },
    }),
  },
  'openai-compatible': {
    configured: (config) => config.openaiCompatible.baseUrl !== null,
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/openai-compatible'))
        .createOpenAICompatible({
          name: 'openai-compatible',
          baseURL: config.openaiCompatible.baseUrl ?? '',
          ...(config.openaiCompatible.apiKey ? { apiKey: config.openaiCompatible.apiKey } : {}),
          // Asks for the usage chunk at the end of the stream (`stream_options.include_usage`).
          includeUsage: true,
          fetch,
        })
        .chatModel(modelId),
    reasoning: (effort) => ({ 'openai-compatible': { reasoningEffort: effort } }),
  },
  google: {
    configured: (config) => config.google.apiKey !== null,
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/google')).createGoogleGenerativeAI({
        apiKey: config.google.apiKey ?? '',
        ...(config.google.baseUrl ? { baseURL: config.google.baseUrl } : {}),
        fetch,
      })(modelId),
    reasoning: (effort) => ({ google: { thinkingConfig: { thinkingBudget: THINKING_BUDGET[effort] } } }),
  },
  mistral: {
    configured: (config) => config.mistral.apiKey !== null,
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/mistral')).createMistral({
        apiKey: config.mistral.apiKey ?? '',
        ...(config.mistral.baseUrl ? { baseURL: config.mistral.baseUrl } : {}),
        fetch,
      })(modelId),
    // Mistral's reasoning models have one level: any effort turns reasoning on.
    reasoning: () => ({ mistral: { reasoningEffort: 'high' } }),
  },
  bedrock: {
    configured: ({ bedrock }) =>
      bedrock.region !== null &&
      (bedrock.apiKey !== null || (bedrock.accessKeyId !== null && bedrock.secretAccessKey !== null)),
    create: async (modelId, { bedrock }, fetch) =>
      (await import('@ai-sdk/amazon-bedrock')).createAmazonBedrock({
        region: bedrock.region ?? '',
        ...(bedrock.apiKey
          ? { apiKey: bedrock.apiKey }
          : {
              accessKeyId: bedrock.accessKeyId ?? '',
              secretAccessKey: bedrock.secretAccessKey ?? '',
              ...(bedrock.sessionToken ? { sessionToken: bedrock.sessionToken } : {}),
            }),
        ...(bedrock.baseUrl ? { baseURL: bedrock.baseUrl } : {}),
        fetch,
      })(modelId),
    // Bedrock takes a thinking budget for Anthropic models and a level for the others (Nova, gpt-oss); the
    // package drops a budget given to any other model (with a warning). The family is decided as the
    // package decides it.
    reasoning: (effort, modelId) => {
      const anthropic = modelId.includes('anthropic') || modelId.includes(':application-inference-profile/');
      const reasoningConfig = anthropic
        ? { type: 'enabled', budgetTokens: THINKING_BUDGET[effort] }
        : { type: 'enabled', maxReasoningEffort: effort };
      return { bedrock: { reasoningConfig } };
    },
  },
};

/**
 * A model whose package loads on its first call: the server starts without loading any provider
 * package, and only the providers a deployment uses are ever loaded.
 */
export function lazyModel(
  provider: HostedProvider,
  modelId: string,
  load: () => Promise<LanguageModelV3>,
): LanguageModelV3 {
  let model: Promise<LanguageModelV3> | undefined;
  const loaded = (): Promise<LanguageModelV3> => {
    model ??= load();
    // A failed load (it should not: the packages are dependencies) is tried again on the next call.
    model.catch(() => {
      model = undefined;
    });
    return model;
  };
  return {
    specificationVersion: 'v3',
    provider,
    modelId,
    get supportedUrls() {
      return loaded().then((m) => m.supportedUrls);
    },
    doGenerate: async (options) => (await loaded()).doGenerate(options),
    doStream: async (options) => (await loaded()).doStream(options),
  };
}
