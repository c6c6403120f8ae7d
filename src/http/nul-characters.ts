import { DocentError } from './errors.ts';

/** Longest path an error names: a body nested thousands deep would otherwise get a path as long as itself. */
const MAX_PATH_CHARS = 200;

function dotted(keys: string[]): string {
  const path = keys.join('.');
  return path.length > MAX_PATH_CHARS ? `${path.slice(0, MAX_PATH_CHARS)}…` : path;
}

/**
 * Where in a parsed JSON value a string (or key) holds U+0000, as a dotted path; undefined if nowhere.
 * Walked with a stack of its own, not by recursion: JSON.parse takes a body nested hundreds of thousands
 * deep, and a recursive walk ran out of call stack on one (a RangeError, answered 500).
 */
export function nulCharacterPath(value: unknown): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? '(body)' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  // Depth first in document order, as the recursive walk went: the first NUL found is the one named.
  const frames: { entries: [string, unknown][]; next: number }[] = [
    { entries: Object.entries(value), next: 0 },
  ];
  const keys: string[] = [];
  for (let frame = frames.at(-1); frame !== undefined; frame = frames.at(-1)) {
    const entry = frame.entries[frame.next++];
    if (entry === undefined) {
      frames.pop();
      keys.pop();
      continue;
    }
    const [key, child] = entry;
    if (key.includes('\u0000') || (typeof child === 'string' && child.includes('\u0000'))) {
      return dotted([...keys, key]);
    }
    if (child !== null && typeof child === 'object') {
      frames.push({ entries: Object.entries(child), next: 0 });
      keys.push(key);
    }
  }
  return undefined;
}

/**
 * Refuses a body with a NUL character in any string: PostgreSQL cannot store U+0000 in text, and no
 * question, fingerprint or name needs one. 400, where storing it would have been a 500 on one database.
 */
export function refuseNulCharacters(value: unknown, where = 'request body'): void {
  const at = nulCharacterPath(value);
  if (at !== undefined) {
    throw new DocentError('invalid_request', `Invalid ${where}`, {
      details: [{ path: at, message: 'Text may not contain the NUL character (U+0000)' }],
    });
  }
}
