import crypto from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 string from the CSPRNG (rejection sampling avoids modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += alphabet[byte % 62];
    }
  }
  return out;
}

/** Prefixed opaque ids (`org_…`, `site_…`) so a stray id in a log says what it names. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
