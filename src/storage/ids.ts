import crypto from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes are drawn in blocks: one `randomBytes` call per id cost more than the rest of making
 * it (each request makes several ids). Node pools `randomUUID`'s bytes the same way.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

function randomByte(): number {
  if (offset >= pool.length) {
    pool = crypto.randomBytes(POOL_BYTES);
    offset = 0;
  }
  return pool[offset++] as number;
}

/** Uniform base62 string from the CSPRNG (rejection sampling avoids modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += alphabet[byte % 62];
  }
  return out;
}

/** Characters of the time part of an id: 62^8 ms is about 6,900 years. */
const TIME_CHARS = 8;

/**
 * Prefixed ids (`org_…`, `thr_…`) so a stray id in a log says what it names: 8 base62 characters of
 * the creation time in milliseconds, then 12 random ones (71 bits). The alphabet is in ASCII order, so
 * ids sort by creation time. That is for the database: rows written together land next to each other
 * in every index keyed by id, so a group commit writes a few index pages instead of one per row.
 * Ids are not secrets (keys are `randomBase62` alone); they reveal when a row was made.
 */
export function newId(prefix: string, now = Date.now()): string {
  let time = '';
  let rest = Math.max(0, Math.floor(now));
  for (let i = 0; i < TIME_CHARS; i++) {
    time = alphabet[rest % 62] + time;
    rest = Math.floor(rest / 62);
  }
  return `${prefix}_${time}${randomBase62(20 - TIME_CHARS)}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
