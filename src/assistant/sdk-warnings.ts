import type { Logger } from 'pino';

/** Distinct warnings logged per process: one per model and kind is enough to act on. */
const MAX_DISTINCT_WARNINGS = 100;

interface SdkWarnings {
  warnings: readonly unknown[];
  provider?: string;
  model?: string;
}

/**
 * The AI SDK prints its warnings (a setting a model does not support, a limit it lowered) with
 * `console.warn` on every call, outside the server's JSON log and once per answer. Its documented hook,
 * the `AI_SDK_LOG_WARNINGS` global, routes them to the log instead, each distinct warning once.
 */
export function logSdkWarnings(logger: Logger): void {
  const seen = new Set<string>();
  (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = (options: SdkWarnings) => {
    for (const warning of options.warnings) {
      const key = JSON.stringify([options.provider, options.model, warning]);
      if (seen.has(key) || seen.size >= MAX_DISTINCT_WARNINGS) continue;
      seen.add(key);
      logger.warn({ provider: options.provider, model: options.model, warning }, 'AI SDK warning');
    }
  };
}
