/** Line and column helpers for reporting problems in JSON config files. */

export interface TextPosition {
  line: number;
  column: number;
}

export const positionAt = (text: string, offset: number): TextPosition => {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
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
