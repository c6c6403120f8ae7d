import { decodeNormalizedInto } from './vectors.ts';

/** Reciprocal rank fusion's constant (Cormack et al., 2009): damps the weight of the very first ranks. */
export const RRF_K = 60;
/**
 * Candidates each ranking contributes to the fusion. Deeper than any page of results, so a chunk
 * ranked modestly by both lists can still come before one ranked well by only one.
 */
export const FUSION_CANDIDATES = 50;

/**
 * A site's chunk vectors under one model, unit length, row after row in one array (a few bytes of
 * overhead per site instead of an object per chunk); `chunkOf[row]` is the chunk's place in the index.
 */
export interface SiteVectors {
  dimensions: number;
  matrix: Float32Array;
  chunkOf: Uint32Array;
}

export interface StoredVector {
  chunk: number;
  dimensions: number;
  vector: Uint8Array;
}

/**
 * The vectors of the chunks in `rows`, normalised once here so a query is a dot product per chunk.
 * Rows of another dimension than the first, or of no length, are left out. Null when none remain.
 */
export function buildSiteVectors(rows: readonly StoredVector[]): SiteVectors | null {
  const dimensions = rows[0]?.dimensions ?? 0;
  if (dimensions <= 0) return null;
  const matrix = new Float32Array(rows.length * dimensions);
  const chunkOf = new Uint32Array(rows.length);
  let count = 0;
  for (const row of rows) {
    if (row.dimensions !== dimensions) continue;
    if (!decodeNormalizedInto(row.vector, matrix, count * dimensions, dimensions)) continue;
    chunkOf[count++] = row.chunk;
  }
  if (count === 0) return null;
  return count === rows.length
    ? { dimensions, matrix, chunkOf }
    : { dimensions, matrix: matrix.slice(0, count * dimensions), chunkOf: chunkOf.slice(0, count) };
}

/**
 * The `k` chunks most similar to `query` (unit length, same dimensions) by cosine similarity, best
 * first; `allowed` filters chunks (version, language). Ties go to the lower chunk number, as in the
 * lexical ranking, so results are the same on every run.
 */
export function nearestChunks(
  vectors: SiteVectors,
  query: Float32Array,
  k: number,
  allowed: (chunk: number) => boolean,
): { chunk: number; similarity: number }[] {
  const { dimensions, matrix, chunkOf } = vectors;
  if (query.length !== dimensions || k <= 0) return [];
  // Kept sorted best first; a candidate below the k-th best costs one comparison.
  const best: { chunk: number; similarity: number }[] = [];
  for (let row = 0; row < chunkOf.length; row++) {
    const chunk = chunkOf[row] ?? 0;
    let dot = 0;
    const base = row * dimensions;
    for (let i = 0; i < dimensions; i++) dot += (matrix[base + i] ?? 0) * (query[i] ?? 0);
    const last = best[best.length - 1];
    if (best.length === k && last !== undefined && !outranks(dot, chunk, last)) continue;
    if (!allowed(chunk)) continue;
    let at = best.length === k ? k - 1 : best.length;
    while (at > 0 && outranks(dot, chunk, best[at - 1] as { chunk: number; similarity: number })) {
      best[at] = best[at - 1] as { chunk: number; similarity: number };
      at--;
    }
    best[at] = { chunk, similarity: dot };
  }
  return best;
}

const outranks = (similarity: number, chunk: number, other: { chunk: number; similarity: number }): boolean =>
  similarity > other.similarity || (similarity === other.similarity && chunk < other.chunk);

/**
 * Reciprocal rank fusion: each chunk scores Σ 1 / (RRF_K + rank) over the rankings that hold it (rank
 * from 1). Ranks, not scores, are fused: BM25F and cosine similarity are on unrelated scales. Scores
 * are divided by the best possible (first in every ranking), so they stay within 0–1 like the lexical
 * ones. Best `limit` first, ties to the lower chunk number.
 */
export function reciprocalRankFusion(
  rankings: readonly (readonly number[])[],
  limit: number,
): { chunk: number; score: number }[] {
  const fused = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((chunk, i) => {
      fused.set(chunk, (fused.get(chunk) ?? 0) + 1 / (RRF_K + i + 1));
    });
  }
  const top = rankings.length / (RRF_K + 1);
  return [...fused]
    .map(([chunk, score]) => ({ chunk, score: score / top }))
    .sort((a, b) => b.score - a.score || a.chunk - b.chunk)
    .slice(0, Math.max(0, limit));
}
