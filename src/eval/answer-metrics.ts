/** Lowercase alphanumeric tokens, as the eval README scores extractive answers. */
export function answerTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Bag-of-tokens F1 between an answer and the reference (SQuAD-style). */
export function tokenF1(answer: string, reference: string): number {
  const a = answerTokens(answer);
  const r = answerTokens(reference);
  if (a.length === 0 || r.length === 0) return a.length === r.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of r) counts.set(t, (counts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const t of a) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      overlap++;
      counts.set(t, left - 1);
    }
  }
  if (overlap === 0) return 0;
  const precision = overlap / a.length;
  const recall = overlap / r.length;
  return (2 * precision * recall) / (precision + recall);
}
