/** Longest glob pattern read from a config; longer ones are not applied. */
const MAX_GLOB_LENGTH = 500;

/** `*` and `?` within one path segment, by dynamic programming: no backtracking blow-up on `*a*a*a*b`. */
const segmentMatches = (pattern: string, text: string): boolean => {
  let row = new Array<boolean>(text.length + 1).fill(false);
  row[0] = true;
  for (const char of pattern) {
    const next = new Array<boolean>(text.length + 1).fill(false);
    if (char === '*') {
      let seen = false;
      for (let j = 0; j <= text.length; j++) {
        seen ||= row[j] === true;
        next[j] = seen;
      }
    } else {
      for (let j = 1; j <= text.length; j++)
        next[j] = row[j - 1] === true && (char === '?' || char === text[j - 1]);
    }
    row = next;
  }
  return row[text.length] === true;
};

/**
 * A matcher for the glob subset configs use to leave files out (`**\/README.md`, `drafts/**`, `*.draft.md`),
 * or null for what it does not read (braces, classes, negation), which the caller warns about.
 */
export const globMatcher = (pattern: string): ((path: string) => boolean) | null => {
  const clean = pattern.trim().replace(/^\.\//, '');
  if (clean === '' || clean.length > MAX_GLOB_LENGTH || /[{}[\]!]/.test(clean)) return null;
  const parts = clean
    .split('/')
    .filter((part, i, all) => part !== '' && !(part === '**' && all[i - 1] === '**'));
  return (path) => {
    const segments = path.split('/');
    const memo = new Map<number, boolean>();
    const match = (p: number, s: number): boolean => {
      const key = p * (segments.length + 1) + s;
      const known = memo.get(key);
      if (known !== undefined) return known;
      let result: boolean;
      const part = parts[p];
      if (part === undefined) result = s === segments.length;
      else if (part === '**') result = match(p + 1, s) || (s < segments.length && match(p, s + 1));
      else result = s < segments.length && segmentMatches(part, segments[s] ?? '') && match(p + 1, s + 1);
      memo.set(key, result);
      return result;
    };
    return match(0, 0);
  };
};
