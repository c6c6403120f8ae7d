/**
 * Vectors as stored: little-endian float32, 4 bytes a dimension, in a plain binary column (`blob` on
 * SQLite, `bytea` on PostgreSQL). Little-endian is written explicitly so a database moved between
 * machines reads the same.
 */

export function encodeVector(vector: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] ?? 0, true);
  return bytes;
}

/** Decodes `bytes` into `out` at `offset`, scaled to unit length; false when it has the wrong size or no length. */
export function decodeNormalizedInto(
  bytes: Uint8Array,
  out: Float32Array,
  offset: number,
  dimensions: number,
): boolean {
  if (bytes.byteLength !== dimensions * 4) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    const value = view.getFloat32(i * 4, true);
    out[offset + i] = value;
    norm += value * value;
  }
  if (!(norm > 0) || !Number.isFinite(norm)) return false;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) out[offset + i] = (out[offset + i] ?? 0) * scale;
  return true;
}

/** `vector` scaled to unit length, or null when it has none (all zeros) or is not finite. */
export function normalized(vector: readonly number[]): Float32Array | null {
  const out = Float32Array.from(vector);
  let norm = 0;
  for (const value of out) norm += value * value;
  if (!(norm > 0) || !Number.isFinite(norm)) return null;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < out.length; i++) out[i] = (out[i] ?? 0) * scale;
  return out;
}
