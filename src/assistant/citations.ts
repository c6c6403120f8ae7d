/**
 * Numbered citations (`[1]`, `[2][3]`, `[1, 2]`) in an answer's Markdown. Shared by the built-in answerer
 * and any model-backed answer: the route emits `h:` source parts only for the ids an answer cites.
 */

// Fenced and inline code can hold `[0]`-style indexing that is not a citation.
const CODE = /```[\s\S]*?(?:```|$)|`[^`\n]*`/g;
// A bracket of numbers not followed by `(` (that would be a Markdown link text), nor by `:` where it opens a
// line (a reference definition, `[1]: https://…`); "run this [1]:" mid-line is a citation.
const CITATION = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\()/g;
/** What comes before a reference definition's `[`: the start of a line and up to three spaces. */
const LINE_START = /(?:^|\n) {0,3}$/;

/**
 * Source ids cited in `text`, in order of first citation, without duplicates. With `knownIds`, ids that
 * are not among them (a model inventing `[9]` with five sources) are dropped.
 */
export function citedSourceIds(text: string, knownIds?: Iterable<string>): string[] {
  const known = knownIds === undefined ? undefined : new Set(knownIds);
  const seen = new Set<string>();
  // Without a backtick there is no code to blank out (and the regex would only scan the text for one).
  const prose = text.includes('`') ? text.replace(CODE, ' ') : text;
  for (const match of prose.matchAll(CITATION)) {
    const at = match.index ?? 0;
    if (prose[at + match[0].length] === ':' && LINE_START.test(prose.slice(Math.max(0, at - 4), at)))
      continue;
    for (const raw of (match[1] ?? '').split(',')) {
      const id = String(Number.parseInt(raw.trim(), 10));
      if (known !== undefined && !known.has(id)) continue;
      seen.add(id);
    }
  }
  return [...seen];
}
