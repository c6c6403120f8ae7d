import type { LanguageModelV1 } from 'ai';
import type { Site } from '../tenancy/sites.ts';
import { type AnswerContextItem, BuiltinAnswerer, type RetrievedSource } from './builtin-answerer.ts';

export interface AnswerModelInput {
  site: Site;
  /** Retrieved chunks, best first, numbered for citation. */
  sources: RetrievedSource[];
  context: AnswerContextItem[];
}

/**
 * Picks the model that answers one request. The one place a provider is chosen: the built-in
 * answerer by default, a hosted or self-hosted model when one is configured.
 */
export type ModelProvider = (input: AnswerModelInput) => LanguageModelV1;

export const builtinModelProvider: ModelProvider = ({ sources, context }) =>
  new BuiltinAnswerer({ sources, context });
