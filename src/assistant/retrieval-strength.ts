/**
 * Retrieval strength: how well the docs appear to cover a question, from the search alone. One decision
 * for every answerer: the built-in answerer declines below it, a real model is told the docs do not
 * appear to cover the question (system-prompt.ts), and the stored answer counts as unanswered
 * (answered.ts). Cheap by design: it reads the `coverage` the search already computed for each chunk.
 */

/**
 * Retrieval counts as weak below this strength: the best of the retrieved chunks has less than this
 * share of the question's IDF-weighted words (`SearchResult.coverage`). Calibrated with
 * `npm run bench:retrieval-strength` on the two eval sets (see the README): at 0.45, 5 % of the
 * questions each set's docs answer fall below it, and 61 % (Samsung TV questions asked of the Claude
 * docs) and 99 % (the other way round) of questions the docs do not cover.
 */
export const MIN_RETRIEVAL_STRENGTH = 0.45;

/** The retrieval's strength: the best coverage among the chunks the answer was given (0 when none). */
export function retrievalStrength(results: readonly { coverage?: number | undefined }[]): number {
  let best = 0;
  for (const result of results) if ((result.coverage ?? 0) > best) best = result.coverage ?? 0;
  return Math.round(best * 1000) / 1000;
}

/**
 * Whether retrieval is too weak for the docs to cover the question: nothing was retrieved, or the
 * strongest chunk is below `MIN_RETRIEVAL_STRENGTH`. Sources that carry no coverage at all (not from
 * Docent's search) are not judged: unknown is not weak.
 */
export function isWeakRetrieval(sources: readonly { coverage?: number | undefined }[]): boolean {
  if (sources.length === 0) return true;
  if (sources.every((source) => source.coverage === undefined)) return false;
  return retrievalStrength(sources) < MIN_RETRIEVAL_STRENGTH;
}
