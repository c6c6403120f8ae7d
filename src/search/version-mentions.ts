/**
 * A question that names one of the site's versions ("max length for tool names in 2025-11-25?",
 * "does v1.15.17 still support X"): the name says which pages to read, not which words to find. As a
 * search word it favours the pages that talk about that version (changelogs, proposals, migration notes)
 * over the version's own pages, which rarely spell their own version out: on the mcp-docs eval set,
 * unversioned proposals mentioning a date outranked the versioned page that answers in most such
 * questions.
 *
 * Only a label's identifiers are looked for, as whole runs of letters, digits, dots, dashes and
 * underscores: a run that holds a digit and either starts with `v` (`v2`, `v1.15.17`) or has three
 * parts or more (`2025-11-25`, `1.15.17`, also read without its `v`). A bare number or a two-part one
 * (`2`, `3.1`) is too often something else ("2 retries", "HTTP/1.1", "Python 3.12") to be read as a
 * version unless written with its `v`, and a label without a digit (`Draft`, `Edge`) is a word readers
 * also use for other things ("a draft", "edge cases") and is never read as a version.
 */

/** A run that may be an identifier (the map of identifiers then tells): no backtracking on long runs. */
const RUN = /[A-Za-z0-9._-]+/g;
const PARTS = /[._-]+/;

const isPunctuation = (unit: number): boolean => unit === 0x2e || unit === 0x2d || unit === 0x5f;

/** The run without its leading and trailing dots, dashes and underscores, as [start, end) in it. */
const trimmed = (run: string): [number, number] => {
  let start = 0;
  let end = run.length;
  while (start < end && isPunctuation(run.charCodeAt(start))) start++;
  while (end > start && isPunctuation(run.charCodeAt(end - 1))) end--;
  return [start, end];
};

/** The identifiers readers may write for a version label, lowercase. */
export const versionIdentifiers = (label: string): string[] => {
  const out = new Set<string>();
  for (const match of label.matchAll(RUN)) {
    const [start, end] = trimmed(match[0]);
    const id = match[0].slice(start, end).toLowerCase();
    if (!/\d/.test(id)) continue;
    const bare = /^v\d/.test(id) ? id.slice(1) : id;
    const long = bare.split(PARTS).length >= 3;
    if (bare !== id) out.add(id);
    if (long) {
      out.add(bare);
      out.add(`v${bare}`);
    }
  }
  return [...out];
};

/** The labels each identifier names, and the longest identifier's length. */
interface Identifiers {
  labels: ReadonlyMap<string, readonly string[]>;
  longest: number;
}

/** Per list of labels: a loaded index's list is one frozen array, so this is worked out once per index. */
const identifiersOf = new WeakMap<readonly string[], Identifiers>();

const identifierMap = (labels: readonly string[]): Identifiers => {
  let known = identifiersOf.get(labels);
  if (known === undefined) {
    const built = new Map<string, string[]>();
    let longest = 0;
    for (const label of labels)
      for (const id of versionIdentifiers(label)) {
        const named = built.get(id) ?? [];
        if (!named.includes(label)) named.push(label);
        built.set(id, named);
        longest = Math.max(longest, id.length);
      }
    known = { labels: built, longest };
    identifiersOf.set(labels, known);
  }
  return known;
};

export interface VersionMention {
  /** The label named, as the site spells it. */
  label: string;
  start: number;
  end: number;
}

/**
 * Where `text` names one of `labels` by an identifier, case-insensitively and as a whole run of letters,
 * digits, dots, dashes and underscores (so `1.1` is named neither by `1.15` nor by `1.1.2`), in text
 * order. One pass over the text, whatever the number of labels.
 */
export const versionMentions = (labels: readonly string[], text: string): VersionMention[] => {
  const mentions: VersionMention[] = [];
  if (labels.length === 0 || !/\d/.test(text)) return mentions;
  const { labels: map, longest } = identifierMap(labels);
  for (const match of text.matchAll(RUN)) {
    const run = match[0];
    const [from, to] = trimmed(run);
    // Identifiers are short: a longer run is none of them, and is not copied.
    if (to - from > longest) continue;
    const named = map.get(run.slice(from, to).toLowerCase());
    if (named === undefined) continue;
    const start = match.index + from;
    for (const label of named) mentions.push({ label, start, end: start + (to - from) });
  }
  return mentions;
};

/** The distinct labels `text` names. */
export const mentionedVersions = (labels: readonly string[], text: string): string[] => [
  ...new Set(versionMentions(labels, text).map((m) => m.label)),
];

/** Something to search for or answer: a letter or a digit. */
const HAS_WORD = /[\p{L}\p{N}]/u;

/**
 * `text` with its mentions of the labels in `blank` blanked (a space each, so the words beside them stay
 * apart); `text` as it is when nothing but the names would be left ("2025-06-18?"), so that no search or
 * answer is asked about nothing.
 */
export const withoutVersionMentions = (
  labels: readonly string[],
  text: string,
  blank: readonly string[],
): string => {
  let out = '';
  let from = 0;
  for (const m of versionMentions(labels, text)) {
    if (!blank.includes(m.label) || m.start < from) continue;
    out += `${text.slice(from, m.start)} `;
    from = m.end;
  }
  if (from === 0) return text;
  out += text.slice(from);
  return HAS_WORD.test(out) ? out : text;
};
