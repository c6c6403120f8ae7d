// Builds the reader's widget (widget/src) into one minified script: `dist/widget/widget.js`, or the folder
// given as the first argument. Fails when the script is over its size budget.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The widget's budget (issue #16): what a docs page pays to load it, compressed. */
export const WIDGET_GZIP_BUDGET_BYTES = 40 * 1024;

export async function buildWidget(outDir = path.join(root, 'dist', 'widget')) {
  const result = await build({
    entryPoints: [path.join(root, 'widget', 'src', 'main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022', 'chrome100', 'firefox100', 'safari15.4'],
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  const gzipBytes = gzipSync(code, { level: 9 }).length;
  if (gzipBytes > WIDGET_GZIP_BUDGET_BYTES)
    throw new Error(
      `widget.js is ${gzipBytes} bytes gzipped, over its ${WIDGET_GZIP_BUDGET_BYTES}-byte budget`,
    );
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, 'widget.js');
  fs.writeFileSync(`${file}.tmp`, code);
  fs.renameSync(`${file}.tmp`, file);
  return { file, bytes: code.length, gzipBytes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await buildWidget(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  process.stderr.write(
    `widget: ${path.relative(root, out.file)} ${(out.bytes / 1024).toFixed(1)} KB, ${(out.gzipBytes / 1024).toFixed(1)} KB gzipped\n`,
  );
}
