import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
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

/** The launcher (`widget.js`) and the other built scripts (`panel-<hash>.js`, `console-<hash>.js`), by file name. */
export interface WidgetAssets {
  launcher: WidgetAsset;
  files: ReadonlyMap<string, WidgetAsset>;
  /** The panel file the launcher loads (its name is built into it); null if it names none. */
  panelFile: string | null;
}

/** Where `npm run build` writes the widget; the same from `src/` and from `dist/` (both one level down). */
export function defaultWidgetDir(): string {
  return fileURLToPath(new URL('../../dist/widget/', import.meta.url));
}

/** Files beside the launcher, as `scripts/build-widget.mjs` names them: its panel, the console's script. */
const LOADED_FILE = /^(panel|console)-[0-9a-f]{16}\.js$/;

/** The built widget, or null when there is none (the server then says how to build it). */
export function loadWidgetAssets(dir: string): WidgetAssets | null {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!names.includes('widget.js')) return null;
  const files = new Map<string, WidgetAsset>();
  for (const name of names.filter((n) => LOADED_FILE.test(n)))
    files.set(name, new WidgetAsset(fs.readFileSync(path.join(dir, name))));
  const launcher = new WidgetAsset(fs.readFileSync(path.join(dir, 'widget.js')));
  const panelFile = launcher.body.toString('latin1').match(/panel-[0-9a-f]{16}\.js/)?.[0] ?? null;
  return { launcher, files, panelFile: panelFile !== null && files.has(panelFile) ? panelFile : null };
}
