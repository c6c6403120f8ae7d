/**
 * Page-level retrieval metrics as defined in `../shared/eval/README.md`: a result list is reduced to
 * distinct pages in rank order; hit@k when one of the first k pages is relevant; MRR@10 is the mean of
 * 1/rank of the first relevant page (0 when none is in the first 10).
 */

export interface QuestionResult {
  /** Page ids of the results in rank order (chunk hits may repeat a page; they are reduced here). */
  rankedPages: readonly string[];
  relevant: readonly string[];
  /** Query latency in milliseconds, when measured. */
  latencyMs?: number;
}

export interface RetrievalMetrics {
  questions: number;
  hitAt1: number;
  hitAt5: number;
  hitAt10: number;
  mrrAt10: number;
  latencyMs: { p50: number; p99: number } | null;
}

/** Distinct pages in first-seen order. */
export const distinctPages = (pages: readonly string[]): string[] => [...new Set(pages)];

/** 1-based rank of the first relevant page among the distinct pages, or null. */
export const firstRelevantRank = (
  rankedPages: readonly string[],
  relevant: readonly string[],
): number | null => {
  const wanted = new Set(relevant);
  const pages = distinctPages(rankedPages);
  const i = pages.findIndex((p) => wanted.has(p));
  return i < 0 ? null : i + 1;
};

/** Nearest-rank percentile (p in 0..100) of a non-empty list. */
export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
};

export const scoreResults = (results: readonly QuestionResult[]): RetrievalMetrics => {
  let h1 = 0;
  let h5 = 0;
  let h10 = 0;
  let mrr = 0;
  const latencies: number[] = [];
  for (const r of results) {
    const rank = firstRelevantRank(r.rankedPages, r.relevant);
    if (rank !== null) {
      if (rank <= 1) h1++;
      if (rank <= 5) h5++;
      if (rank <= 10) {
        h10++;
        mrr += 1 / rank;
      }
    }
    if (r.latencyMs !== undefined) latencies.push(r.latencyMs);
  }
  const n = results.length || 1;
  return {
    questions: results.length,
    hitAt1: h1 / n,
    hitAt5: h5 / n,
    hitAt10: h10 / n,
    mrrAt10: mrr / n,
    latencyMs:
      latencies.length > 0 ? { p50: percentile(latencies, 50), p99: percentile(latencies, 99) } : null,
  };
};
