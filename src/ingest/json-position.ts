/** Line and column helpers for reporting problems in JSON config files. */

export interface TextPosition {
  line: number;
  column: number;
}

/**
 * Offsets where each line starts, for the text last asked about: warnings about one config file ask
 * many times (each missing page of a 2 MB `docs.json`), and scanning from the start each time was
 * quadratic.
 */
let indexed: { text: string; lineStarts: Uint32Array } | undefined;

const lineStartsOf = (text: string): Uint32Array => {
  if (indexed?.text === text) return indexed.lineStarts;
  let count = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  const lineStarts = new Uint32Array(count);
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts[line++] = i + 1;
  indexed = { text, lineStarts };
  return lineStarts;
};

export const positionAt = (text: string, offset: number): TextPosition => {
  const end = Math.min(Math.max(offset, 0), text.length);
  const lineStarts = lineStartsOf(text);
  // The last line starting at or before `end`.
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((lineStarts[mid] ?? 0) <= end) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: end - (lineStarts[low] ?? 0) + 1 };
};

/** 1-based line of the first occurrence of `value` as a JSON string literal, if any. */
export const lineOfJsonString = (text: string, value: string): number | undefined => {
  const offset = text.indexOf(JSON.stringify(value));
  return offset < 0 ? undefined : positionAt(text, offset).line;
};

/**
 * Finds where JSON.parse failed. Node 20 only sometimes puts `at position N` in the message, so when it
 * does not, a small scanner walks the grammar to the first offending character.
 */
export const jsonErrorOffset = (text: string, error: unknown): number => {
  const message = error instanceof Error ? error.message : String(error);
  const match = /position (\d+)/.exec(message);
  if (match?.[1]) return Number(match[1]);
  return scanJsonError(text);
};

const scanJsonError = (text: string): number => {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++;
  };
  const literal = (word: string): void => {
    for (const ch of word) {
      if (text.charAt(i) !== ch) fail();
      i++;
    }
  };
  const string = (): void => {
    if (text.charAt(i) !== '"') fail();
    i++;
    while (i < text.length) {
      const ch = text.charAt(i);
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === '\\') i++;
      else if (ch < ' ') fail();
      i++;
    }
    fail();
  };
  const number = (): void => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (!m) fail();
    i += m?.[0].length ?? 0;
  };
  const value = (): void => {
    ws();
    const ch = text.charAt(i);
    if (ch === '{') {
      i++;
      ws();
      if (text.charAt(i) === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        string();
        ws();
        if (text.charAt(i) !== ':') fail();
        i++;
        value();
        ws();
        if (text.charAt(i) === ',') {
          i++;
          continue;
        }
        if (text.charAt(i) === '}') {
          i++;
          return;
        }
        fail();
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text.charAt(i) === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text.charAt(i) === ',') {
          i++;
          continue;
        }
        if (text.charAt(i) === ']') {
          i++;
          return;
        }
        fail();
      }
    }
    if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else number();
  };
  try {
    value();
    ws();
    return i;
  } catch (at) {
    return typeof at === 'number' ? at : 0;
  }
};
