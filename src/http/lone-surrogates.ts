/** Half of a UTF-16 pair without its other half. */
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const LONE_SURROGATE = new RegExp(LONE_SURROGATES.source);
/** A JSON escape of either half of a pair: the only way a body (valid or not as UTF-8) can hold one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Whether JSON text may hold a lone surrogate, cheaply: a body without an escaped one needs no walk. */
export const mayHoldLoneSurrogates = (json: string): boolean => SURROGATE_ESCAPE.test(json);

const wellFormed = (text: string): string => text.replace(LONE_SURROGATES, '\uFFFD');

/**
 * A parsed JSON value with every lone surrogate in its strings and keys made U+FFFD, in place. A client
 * that cuts a question in the middle of an emoji sends one (`"\ud83d"`); stored as it is, SQLite kept
 * it as three replacement characters and PostgreSQL as one, so the same conversation read back
 * differently on the two databases. Walked with a stack of its own, as JSON may nest deeply.
 */
export function replaceLoneSurrogates<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const stack: object[] = [value];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      let fixedKey = key;
      if (!Array.isArray(record) && LONE_SURROGATE.test(key)) {
        fixedKey = wellFormed(key);
        delete record[key];
      }
      if (typeof child === 'string') record[fixedKey] = wellFormed(child);
      else {
        if (fixedKey !== key) record[fixedKey] = child;
        if (child !== null && typeof child === 'object') stack.push(child);
      }
    }
  }
  return value;
}
