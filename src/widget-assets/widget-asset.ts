import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/**
 * The reader's widget as the server serves it: the script built by `scripts/build-widget.mjs`, read once
 * at start and named by a hash of its content, so a versioned URL can be cached forever. Compressed on
 * first request, once per encoding (brotli at its best setting takes a tenth of a second).
 */
export class WidgetAsset {
  /** First 16 hex digits of the SHA-256 of `body`. */
  readonly hash: string;
  #gzip: Buffer | undefined;
  #brotli: Buffer | undefined;

  constructor(readonly body: Buffer) {
    this.hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  }

  gzip(): Buffer {
    this.#gzip ??= gzipSync(this.body, { level: 9 });
    return this.#gzip;
  }

  brotli(): Buffer {
    this.#brotli ??= brotliCompressSync(this.body);
    return this.#brotli;
  }
}

/** Where `npm run build` writes the widget; the same from `src/` and from `dist/` (both one level down). */
export function defaultWidgetFile(): string {
  return fileURLToPath(new URL('../../dist/widget/widget.js', import.meta.url));
}

/** The built widget, or null when there is none (the server then says how to build it). */
export function loadWidgetAsset(file: string): WidgetAsset | null {
  try {
    return new WidgetAsset(fs.readFileSync(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
