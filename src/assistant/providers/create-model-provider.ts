import type { LanguageModelV1 } from 'ai';
import type { Logger } from 'pino';
import type { ModelConfig, ProviderAccess } from '../../config.ts';
import { builtinModelProvider, type ModelProvider } from '../model-provider.ts';
import { answerModel } from './answer-model.ts';
import { createAnthropicModel } from './anthropic.ts';
import { anthropicMessagesStreamDecoder } from './anthropic-messages-stream.ts';
import { directStreamModel } from './direct-stream-model.ts';
import { formatModelSpec, type ModelProviderName, type ModelSpec, parseModelSpec } from './model-spec.ts';
import { createOpenAIModel } from './openai.ts';
import { openAIChatStreamDecoder } from './openai-chat-stream.ts';
import { createOpenAICompatibleModel } from './openai-compatible.ts';
import { resilientFetch } from './resilient-fetch.ts';
import type { PartDecoder } from './stream-decoding.ts';
import { buildSystemPrompt } from './system-prompt.ts';

export interface CreateModelProviderOptions {
  /** Where a site's unusable model setting is reported (once per setting). */
  logger?: Pick<Logger, 'warn'>;
  /** First retry backoff; tests shorten it. */
  retryDelayMs?: number;
}

type ModelFactory = (
  modelId: string,
  access: ProviderAccess,
  fetch: typeof globalThis.fetch,
) => LanguageModelV1;

type HostedProvider = Exclude<ModelProviderName, 'builtin'>;

const factories: Record<HostedProvider, ModelFactory> = {
  openai: createOpenAIModel,
  anthropic: createAnthropicModel,
  'openai-compatible': createOpenAICompatibleModel,
};

/** Docent's decoding of each package's streamed answers (direct-stream-model.ts). */
const decoders: Record<HostedProvider, (model: LanguageModelV1) => PartDecoder> = {
  openai: () => openAIChatStreamDecoder({ flavor: 'openai', metadataKey: 'openai' }),
  anthropic: () => anthropicMessagesStreamDecoder(),
  // The package keys its metadata by its provider name up to the first dot ('openai-compatible').
  'openai-compatible': (model) =>
    openAIChatStreamDecoder({
      flavor: 'openai-compatible',
      metadataKey: model.provider.split('.')[0]?.trim() ?? model.provider,
    }),
};

/**
 * The one place a model is chosen for a request: the site's own `model` setting when it names a
 * provider this server has credentials for, else the server's `DOCENT_MODEL`; `builtin` is the built-in
 * answerer. Provider clients are stateless apart from their settings, so one per model id is reused;
 * Docent decodes their streamed answers itself (direct-stream-model.ts).
 */
export function createModelProvider(
  config: ModelConfig,
  options: CreateModelProviderOptions = {},
): ModelProvider {
  const fetch = resilientFetch({
    connectTimeoutMs: config.connectTimeoutMs,
    stallTimeoutMs: config.stallTimeoutMs,
    maxRetries: config.maxRetries,
    ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }),
  });
  const models = new Map<string, LanguageModelV1>();
  const reported = new Set<string>();

  const modelFor = (spec: ModelSpec, provider: HostedProvider): LanguageModelV1 => {
    const key = formatModelSpec(spec);
    let model = models.get(key);
    if (model === undefined) {
      const access = providerAccess(config, provider);
      model = directStreamModel({
        create: (modelFetch) => factories[provider](spec.model, access, modelFetch),
        fetch,
        decoder: decoders[provider],
      });
      models.set(key, model);
    }
    return model;
  };

  const specFor = (siteModel: string | null | undefined, domain: string): ModelSpec => {
    if (!siteModel) return config.default;
    let spec: ModelSpec;
    try {
      spec = parseModelSpec(siteModel);
    } catch (error) {
      report(`${domain}:${siteModel}`, { site: domain, model: siteModel, problem: String(error) });
      return config.default;
    }
    if (!isProviderConfigured(config, spec.provider)) {
      report(`${domain}:${siteModel}`, {
        site: domain,
        model: siteModel,
        problem: `provider ${spec.provider} is not configured on this server`,
      });
      return config.default;
    }
    return spec;
  };

  const report = (key: string, details: Record<string, string>): void => {
    if (reported.has(key)) return;
    reported.add(key);
    options.logger?.warn(
      { ...details, using: formatModelSpec(config.default) },
      "site's model setting is unusable; using the server's model",
    );
  };

  return (input) => {
    const spec = specFor(input.site.model, input.site.domain);
    if (spec.provider === 'builtin') return builtinModelProvider(input);
    const system = buildSystemPrompt({
      siteName: input.site.name,
      instructions: input.site.instructions ?? null,
      sources: input.sources,
      context: input.context,
      currentPath: input.currentPath ?? null,
      searchSteps: config.searchSteps,
    });
    return answerModel(modelFor(spec, spec.provider), system);
  };
}

/** Whether this server has what `provider` needs (an API key, or the compatible server's address). */
export function isProviderConfigured(config: ModelConfig, provider: ModelProviderName): boolean {
  switch (provider) {
    case 'builtin':
      return true;
    case 'openai':
      return config.openai.apiKey !== null;
    case 'anthropic':
      return config.anthropic.apiKey !== null;
    case 'openai-compatible':
      return config.openaiCompatible.baseUrl !== null;
  }
}

function providerAccess(config: ModelConfig, provider: HostedProvider): ProviderAccess {
  if (provider === 'openai') return config.openai;
  if (provider === 'anthropic') return config.anthropic;
  return config.openaiCompatible;
}
