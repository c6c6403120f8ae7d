import type { LanguageModelV3, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';

/** The call settings a site may set for its model (site-model-settings.ts validates them). */
export interface AnswerCallSettings {
  temperature?: number;
  maxOutputTokens?: number;
  /** Provider-specific options, keyed by provider (the reasoning effort, as each provider names it). */
  providerOptions?: SharedV3ProviderOptions;
}

/**
 * A provider's model as the assistant uses it: the server-built system prompt goes first (any system
 * message already in the prompt is dropped: the route never forwards client-sent ones, and this keeps it
 * so), and the site's call settings apply to every call, including each step of a model that searches.
 */
export function answerModel(
  model: LanguageModelV3,
  system: string,
  settings: AnswerCallSettings = {},
): LanguageModelV3 {
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      transformParams: async ({ params }) => ({
        ...params,
        ...settings,
        prompt: [{ role: 'system', content: system }, ...params.prompt.filter((m) => m.role !== 'system')],
      }),
    },
  });
}
