// Builds the browser code into `dist/widget/`, or the folder given as the first argument: the reader's
// widget (widget/src) as `widget.js`, the launcher every docs page loads, and `panel-<hash>.js`, the panel
// it loads afterwards (its name, a hash of its content, is built into the launcher); and the owner's
// console script (console-ui/src) as `console-<hash>.js`. Fails when the widget is over its budget.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Issue #16's budget for what a docs page loads: launcher and panel together, gzipped. */
export const WIDGET_GZIP_BUDGET_BYTES = 40 * 1024;
/** The launcher alone stays small, so it paints within the first frames after it arrives. */
export const LAUNCHER_GZIP_BUDGET_BYTES = 8 * 1024;

async function bundle(entry, define = {}) {
  const result = await build({
    entryPoints: [path.join(root, entry)],
    loader: { '.css': 'text' },
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022', 'chrome100', 'firefox100', 'safari15.4'],
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    define,
  });
  return Buffer.from(result.outputFiles[0].contents);
}

function writeAtomically(file, contents) {
  fs.writeFileSync(`${file}.tmp`, contents);
  fs.renameSync(`${file}.tmp`, file);
}

export async function buildWidget(outDir = path.join(root, 'dist', 'widget')) {
  const panel = await bundle('widget/src/panel.ts');
  const panelFile = `panel-${createHash('sha256').update(panel).digest('hex').slice(0, 16)}.js`;
  const launcher = await bundle('widget/src/main.ts', { __DOCENT_PANEL_FILE__: JSON.stringify(panelFile) });
  const launcherGzip = gzipSync(launcher, { level: 9 }).length;
  const panelGzip = gzipSync(panel, { level: 9 }).length;
  if (launcherGzip > LAUNCHER_GZIP_BUDGET_BYTES)
    throw new Error(
      `widget.js is ${launcherGzip} bytes gzipped, over its ${LAUNCHER_GZIP_BUDGET_BYTES}-byte budget`,
    );
  if (launcherGzip + panelGzip > WIDGET_GZIP_BUDGET_BYTES)
    throw new Error(
      `the widget is ${launcherGzip + panelGzip} bytes gzipped, over its ${WIDGET_GZIP_BUDGET_BYTES}-byte budget`,
    );
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  writeAtomically(path.join(outDir, panelFile), panel);
  writeAtomically(path.join(outDir, 'widget.js'), launcher);
  const consoleScript = await bundle('console-ui/src/main.ts');
  const consoleFile = `console-${createHash('sha256').update(consoleScript).digest('hex').slice(0, 16)}.js`;
  writeAtomically(path.join(outDir, consoleFile), consoleScript);
  return {
    dir: outDir,
    console: { file: consoleFile, bytes: consoleScript.length },
    launcher: { bytes: launcher.length, gzipBytes: launcherGzip },
    panel: { file: panelFile, bytes: panel.length, gzipBytes: panelGzip },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await buildWidget(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
  process.stderr.write(
    `widget: ${path.relative(root, out.dir) || '.'}/widget.js ${kb(out.launcher.bytes)} (${kb(out.launcher.gzipBytes)} gzipped), ` +
      `${out.panel.file} ${kb(out.panel.bytes)} (${kb(out.panel.gzipBytes)} gzipped), ${out.console.file} ${kb(out.console.bytes)}\n`,
  );
}
