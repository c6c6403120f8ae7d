/**
 * `provider:model` strings, as written in `DOCENT_MODEL` and in a site's `model` setting. Parsed here
 * only, so the configuration, the CLI and the admin API accept and reject exactly the same values.
 */

export const MODEL_PROVIDERS = [
  'builtin',
  'openai',
  'openai-responses',
  'anthropic',
  'openai-compatible',
  'google',
  'mistral',
  'bedrock',
] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

export interface ModelSpec {
  provider: ModelProviderName;
  /**
   * The provider's model id (`gpt-4o-mini`, `claude-3-5-haiku-latest`, `llama3.1:8b`,
   * `gemini-2.5-flash`, `anthropic.claude-3-5-haiku-20241022-v1:0`); `builtin` for the built-in answerer.
   */
  model: string;
}

export const BUILTIN_MODEL_SPEC: ModelSpec = Object.freeze({ provider: 'builtin', model: 'builtin' });

/** Longest accepted model id: real ids are far shorter; the bound keeps junk out of the database. */
const MAX_MODEL_ID_LENGTH = 200;

/** Characters of a refused spec quoted back in its error: enough to recognise it, never the whole paste. */
const MAX_QUOTED_CHARS = 80;

function quoted(text: string): string {
  const chars = Array.from(text);
  return chars.length > MAX_QUOTED_CHARS ? `${chars.slice(0, MAX_QUOTED_CHARS).join('')}…` : text;
}

export class ModelSpecError extends Error {
  override name = 'ModelSpecError';
}

/**
 * Parses `provider:model`. Only the first colon separates: model ids may contain colons themselves
 * (Ollama's `llama3.1:8b`, OpenRouter's `meta-llama/llama-3.1-8b-instruct:free`). `builtin` stands alone.
 */
export function parseModelSpec(value: string): ModelSpec {
  const trimmed = value.trim();
  if (trimmed === 'builtin' || trimmed === 'builtin:builtin') return BUILTIN_MODEL_SPEC;
  const colon = trimmed.indexOf(':');
  const expected = `expected <provider>:<model> with provider one of ${MODEL_PROVIDERS.join(', ')} (e.g. openai:gpt-4o-mini), or builtin`;
  if (colon <= 0) throw new ModelSpecError(`"${quoted(trimmed)}" is not a model: ${expected}`);
  const provider = trimmed.slice(0, colon);
  const model = trimmed.slice(colon + 1).trim();
  if (!isProviderName(provider) || provider === 'builtin') {
    throw new ModelSpecError(`unknown provider "${quoted(provider)}": ${expected}`);
  }
  if (model.length === 0) throw new ModelSpecError(`"${quoted(trimmed)}" names no model: ${expected}`);
  if (model.length > MAX_MODEL_ID_LENGTH)
    throw new ModelSpecError(`model id is longer than ${MAX_MODEL_ID_LENGTH} characters`);
  // Printable ASCII only: every provider's ids are, and anything else is a paste mistake.
  if (!/^[\x21-\x7e]+$/.test(model))
    throw new ModelSpecError('model id must be printable ASCII without spaces');
  return { provider, model };
}

export function formatModelSpec(spec: ModelSpec): string {
  return spec.provider === 'builtin' ? 'builtin' : `${spec.provider}:${spec.model}`;
}

function isProviderName(value: string): value is ModelProviderName {
  return (MODEL_PROVIDERS as readonly string[]).includes(value);
}
