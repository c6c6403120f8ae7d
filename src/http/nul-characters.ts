import { DocentError } from './errors.ts';

/** Where in a parsed JSON value a string (or key) holds U+0000, as a dotted path; undefined if nowhere. */
export function nulCharacterPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(body)' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (key.includes('\u0000')) return at;
    const found = nulCharacterPath(child, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Refuses a body with a NUL character in any string: PostgreSQL cannot store U+0000 in text, and no
 * question, fingerprint or name needs one. 400, where storing it would have been a 500 on one database.
 */
export function refuseNulCharacters(value: unknown): void {
  const at = nulCharacterPath(value);
  if (at !== undefined) {
    throw new DocentError('invalid_request', 'Invalid request body', {
      details: [{ path: at, message: 'Text may not contain the NUL character (U+0000)' }],
    });
  }
}
