import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Logger } from 'pino';
import type { ModelConfig } from '../../config.ts';
import { builtinModelProvider, type ModelInUse, type ModelProvider } from '../model-provider.ts';
import { type AnswerCallSettings, answerModel } from './answer-model.ts';
import { chatStreamHandOver, useHandOver } from './fast-chat-stream.ts';
import { formatModelSpec, type ModelSpec, parseModelSpec } from './model-spec.ts';
import { HOSTED_PROVIDERS, type HostedProvider, lazyModel } from './provider-models.ts';
import { resilientFetch } from './resilient-fetch.ts';
import { type SiteModelOptions, storedModelOptions } from './site-model-settings.ts';
import { buildSystemPrompt } from './system-prompt.ts';

export interface CreateModelProviderOptions {
  /** Where a site's unusable model setting is reported (once per setting). */
  logger?: Pick<Logger, 'warn'>;
  /** First retry backoff; tests shorten it. */
  retryDelayMs?: number;
}

/**
 * The one place a model is chosen for a request: the site's own `model` setting when it names a
 * provider this server has credentials for, else the server's `DOCENT_MODEL`; `builtin` is the built-in
 * answerer. Provider clients are stateless apart from their settings, so one per model id is reused;
 * the site's instructions and model options are applied per request (answer-model.ts).
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
  // OpenAI-compatible answers are read by Docent's decoder (fast-chat-stream.ts says why).
  const handOver = chatStreamHandOver(fetch);
  const models = new Map<string, LanguageModelV3>();
  const reported = new Set<string>();

  const modelFor = (spec: ModelSpec, provider: HostedProvider): LanguageModelV3 => {
    const key = formatModelSpec(spec);
    let model = models.get(key);
    if (model === undefined) {
      const providerFetch = provider === 'openai-compatible' ? handOver.fetch : fetch;
      model = lazyModel(provider, spec.model, () =>
        HOSTED_PROVIDERS[provider].create(spec.model, config, providerFetch),
      );
      models.set(key, model);
    }
    return model;
  };

  const specFor = (siteModel: string | null | undefined, domain: string): ModelSpec => {
    const choice = modelChoice(config, siteModel);
    if (choice.problem !== null && siteModel)
      report(`${domain}:${siteModel}`, { site: domain, model: siteModel, problem: choice.problem });
    return choice.spec;
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
      repositoryInstructions: input.site.repository_instructions ?? null,
      sources: input.sources,
      context: input.context,
      currentPath: input.currentPath ?? null,
      searchSteps: config.searchSteps,
    });
    const settings = callSettings(spec.provider, spec.model, storedModelOptions(input.site.model_options));
    const model = answerModel(modelFor(spec, spec.provider), system, settings);
    return spec.provider === 'openai-compatible' ? useHandOver(model, handOver) : model;
  };
}

/** A site's model options as the call settings of `provider`'s model `modelId`. */
export function callSettings(
  provider: HostedProvider,
  modelId: string,
  options: SiteModelOptions | null,
): AnswerCallSettings {
  if (options === null) return {};
  return {
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(options.reasoningEffort === undefined
      ? {}
      : { providerOptions: HOSTED_PROVIDERS[provider].reasoning(options.reasoningEffort, modelId) }),
  };
}

/**
 * The site's `model` setting when it names a provider this server can call, else the server's
 * `DOCENT_MODEL`, with the reason: the answers' choice and what the owner is shown (the console, the
 * admin API's settings), from one place.
 */
export function modelChoice(
  config: ModelConfig,
  siteModel: string | null | undefined,
): { spec: ModelSpec; problem: string | null } {
  if (!siteModel) return { spec: config.default, problem: null };
  let spec: ModelSpec;
  try {
    spec = parseModelSpec(siteModel);
  } catch (error) {
    return { spec: config.default, problem: error instanceof Error ? error.message : String(error) };
  }
  if (spec.provider === 'builtin') return { spec, problem: null };
  const missing = HOSTED_PROVIDERS[spec.provider].missing(config);
  if (missing.length > 0)
    return {
      spec: config.default,
      problem: `provider ${spec.provider} is not configured on this server (${missing.map((m) => m.variable).join(', ')} not set)`,
    };
  return { spec, problem: null };
}

/** `modelChoice` as the owner sees it. */
export function modelInUse(config: ModelConfig, siteModel: string | null | undefined): ModelInUse {
  const { spec, problem } = modelChoice(config, siteModel);
  return { model: formatModelSpec(spec), problem };
}
