/**
 * A question that names one of the site's versions ("max length for tool names in 2025-11-25?",
 * "does v1.15.17 still support X"): the name says which pages to read, not which words to find. As a
 * search word it favours the pages that talk about that version (changelogs, proposals, migration notes)
 * over the version's own pages, which rarely spell their own version out: on the mcp-docs eval set,
 * unversioned proposals mentioning a date outranked the versioned page that answers in most such
 * questions.
 *
 * Only a label's identifiers are looked for: its runs of letters, digits, dots, dashes and underscores
 * that hold a digit (`Version 2025-11-25 (latest)` → `2025-11-25`, `v1.15.17` → `v1.15.17` and
 * `1.15.17`). A label without one (`Draft`, `Edge`) is a word readers also use for other things ("a
 * draft", "edge cases") and is never read as a version.
 */

const IDENTIFIER = /[A-Za-z0-9._-]*\d[A-Za-z0-9._-]*/g;
const EDGE_PUNCTUATION = /^[._-]+|[._-]+$/g;

/** The identifiers readers may write for a version label, lowercase. */
export const versionIdentifiers = (label: string): string[] => {
  const out = new Set<string>();
  for (const match of label.matchAll(IDENTIFIER)) {
    const id = match[0].replace(EDGE_PUNCTUATION, '').toLowerCase();
    if (!/\d/.test(id)) continue;
    out.add(id);
    // `v1.2` is also written `1.2`.
    if (/^v\d/.test(id)) out.add(id.slice(1));
  }
  return [...out];
};

/** The labels each identifier names, per list of labels (a loaded index's list is one array). */
const identifiersOf = new WeakMap<readonly string[], ReadonlyMap<string, readonly string[]>>();

const identifierMap = (labels: readonly string[]): ReadonlyMap<string, readonly string[]> => {
  let map = identifiersOf.get(labels);
  if (map === undefined) {
    const built = new Map<string, string[]>();
    for (const label of labels)
      for (const id of versionIdentifiers(label)) {
        const named = built.get(id) ?? [];
        if (!named.includes(label)) named.push(label);
        built.set(id, named);
      }
    map = built;
    identifiersOf.set(labels, map);
  }
  return map;
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
  const map = identifierMap(labels);
  for (const match of text.matchAll(IDENTIFIER)) {
    const run = match[0];
    const lead = run.length - run.replace(/^[._-]+/, '').length;
    const id = run.replace(EDGE_PUNCTUATION, '');
    const named = map.get(id.toLowerCase());
    if (named === undefined) continue;
    const start = match.index + lead;
    for (const label of named) mentions.push({ label, start, end: start + id.length });
  }
  return mentions;
};

/** The distinct labels `text` names. */
export const mentionedVersions = (labels: readonly string[], text: string): string[] => [
  ...new Set(versionMentions(labels, text).map((m) => m.label)),
];

/** `text` with its mentions of the labels in `blank` blanked (a space each, so the words beside them stay apart). */
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
  return from === 0 ? text : out + text.slice(from);
};
