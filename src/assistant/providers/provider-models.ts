import type { LanguageModelV3, SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { ModelConfig, ProviderAccess } from '../../config.ts';
import type { ModelProviderName } from './model-spec.ts';

export type HostedProvider = Exclude<ModelProviderName, 'builtin'>;

/** How hard a reasoning model thinks before it answers; `null` leaves the model's default. */
export type ReasoningEffort = 'low' | 'medium' | 'high';

/** Thinking budgets in tokens, for providers that take a budget rather than a level. */
const THINKING_BUDGET: Record<ReasoningEffort, number> = { low: 1_024, medium: 4_096, high: 16_384 };

/** A setting the server lacks for a provider: the environment variable, and what it holds. */
export interface MissingSetting {
  variable: string;
  why: string;
}

interface HostedProviderDefinition {
  /** What the server lacks to call the provider (credentials, an address); none when it can. */
  missing(config: ModelConfig): MissingSetting[];
  /** The package's model for `modelId`; its package is loaded on first use, so unused ones cost nothing. */
  create(modelId: string, config: ModelConfig, fetch: typeof globalThis.fetch): Promise<LanguageModelV3>;
  /** A reasoning effort as this provider's options for `modelId`. */
  reasoning(effort: ReasoningEffort, modelId: string): SharedV3ProviderOptions;
}

// API keys are always passed (as '' when unset): the packages would otherwise read the environment
// themselves, and config.ts is the one reader.
const keyed = (access: ProviderAccess, fetch: typeof globalThis.fetch) => ({
  apiKey: access.apiKey ?? '',
  ...(access.baseUrl ? { baseURL: access.baseUrl } : {}),
  fetch,
});

/** `variable` is missing when `value` is null. */
const needs = (value: string | null, variable: string, why: string): MissingSetting[] =>
  value === null ? [{ variable, why }] : [];

/**
 * The providers Docent can call, each through its AI SDK package, which speaks the provider's API and
 * decodes its stream. Every package is given Docent's `fetch` (resilient-fetch.ts): the transport,
 * timeouts and retries are the same for all.
 */
export const HOSTED_PROVIDERS: Record<HostedProvider, HostedProviderDefinition> = {
  openai: {
    missing: (config) => needs(config.openai.apiKey, 'OPENAI_API_KEY', 'the OpenAI API key'),
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/openai')).createOpenAI(keyed(config.openai, fetch)).chat(modelId),
    reasoning: (effort) => ({ openai: { reasoningEffort: effort } }),
  },
  'openai-responses': {
    missing: (config) => needs(config.openai.apiKey, 'OPENAI_API_KEY', 'the OpenAI API key'),
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/openai')).createOpenAI(keyed(config.openai, fetch)).responses(modelId),
    reasoning: (effort) => ({ openai: { reasoningEffort: effort } }),
  },
  anthropic: {
    missing: (config) => needs(config.anthropic.apiKey, 'ANTHROPIC_API_KEY', 'the Anthropic API key'),
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/anthropic')).createAnthropic(keyed(config.anthropic, fetch))(modelId),
    reasoning: (effort) => ({
      anthropic: { thinking: { type: 'enabled', budgetTokens: THINKING_BUDGET[effort] } },
    }),
  },
  'openai-compatible': {
    missing: (config) =>
      needs(
        config.openaiCompatible.baseUrl,
        'DOCENT_MODEL_BASE_URL',
        'the server address, e.g. http://127.0.0.1:11434/v1 for Ollama',
      ),
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
    missing: (config) => needs(config.google.apiKey, 'GOOGLE_GENERATIVE_AI_API_KEY', 'the Gemini API key'),
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/google')).createGoogleGenerativeAI(keyed(config.google, fetch))(modelId),
    reasoning: (effort) => ({ google: { thinkingConfig: { thinkingBudget: THINKING_BUDGET[effort] } } }),
  },
  mistral: {
    missing: (config) => needs(config.mistral.apiKey, 'MISTRAL_API_KEY', 'the Mistral API key'),
    create: async (modelId, config, fetch) =>
      (await import('@ai-sdk/mistral')).createMistral(keyed(config.mistral, fetch))(modelId),
    // Mistral's reasoning models have one level: any effort turns reasoning on.
    reasoning: () => ({ mistral: { reasoningEffort: 'high' } }),
  },
  bedrock: {
    missing: ({ bedrock }) => [
      ...needs(bedrock.region, 'AWS_REGION', 'the Bedrock region, e.g. us-east-1'),
      ...(bedrock.apiKey !== null || (bedrock.accessKeyId !== null && bedrock.secretAccessKey !== null)
        ? []
        : // Name the half of the pair that is missing, not one that is set.
          bedrock.accessKeyId !== null
          ? [
              {
                variable: 'AWS_SECRET_ACCESS_KEY',
                why: 'with AWS_ACCESS_KEY_ID, or AWS_BEARER_TOKEN_BEDROCK instead',
              },
            ]
          : [
              {
                variable: 'AWS_ACCESS_KEY_ID',
                why: 'with AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK instead',
              },
            ]),
    ],
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
    if (model === undefined) {
      model = load();
      // A failed load (it should not: the packages are dependencies) is tried again on the next call.
      model.catch(() => {
        model = undefined;
      });
    }
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
