import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Site } from '../tenancy/sites.ts';
import { type AnswerContextItem, BuiltinAnswerer, type RetrievedSource } from './builtin-answerer.ts';

export interface AnswerModelInput {
  site: Site;
  /** Retrieved chunks, best first, numbered for citation. */
  sources: RetrievedSource[];
  context: AnswerContextItem[];
  /** The docs page the reader asks from, when the client sent it. */
  currentPath?: string | null;
}

/**
 * Picks the model that answers one request: the built-in answerer by default; `createModelProvider`
 * (`providers/create-model-provider.ts`) is the one place a hosted or self-hosted model is chosen.
 */
export type ModelProvider = (input: AnswerModelInput) => LanguageModelV3;

export const builtinModelProvider: ModelProvider = ({ sources, context }) =>
  new BuiltinAnswerer({ sources, context });

/** The model that writes a site's answers on this server, and why the site's own setting is not used. */
export interface ModelInUse {
  /** `provider:model`, or `builtin`. */
  model: string;
  /** Why the site's `model` setting is not the one in use; null when it is (or the site has none). */
  problem: string | null;
}
