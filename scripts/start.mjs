// `npm start`: runs the compiled server (dist/), so production never transpiles TypeScript at start.
// On a fresh checkout, or when a source or build file is newer than the last build, it builds first.
// `node scripts/start.mjs --build-only` does just that check and build (benchmarks and tests use it);
// `--check` only prints whether a build is due.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.built');
const entry = path.join(root, 'dist', 'main.js');

function newestSource(dir) {
  let newest = 0;
  for (const item of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, item.name);
    if (item.isDirectory()) newest = Math.max(newest, newestSource(full));
    // Every file: the build also compiles .tsx screens and copies .mjs worker boot files and styles.
    else newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function stale() {
  if (!fs.existsSync(entry) || !fs.existsSync(stamp)) return 'no build yet';
  // An image or a package without sources runs what it was given.
  if (!fs.existsSync(path.join(root, 'src'))) return null;
  const sources = ['src', 'widget', 'console-ui']
    .map((dir) => path.join(root, dir))
    .filter((dir) => fs.existsSync(dir));
  // And what says how to build: the build's own config and scripts.
  const buildFiles = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build-widget.mjs']
    .map((file) => path.join(root, file))
    .filter((file) => fs.existsSync(file));
  const newest = Math.max(
    ...sources.map(newestSource),
    ...buildFiles.map((file) => fs.statSync(file).mtimeMs),
  );
  return newest > fs.statSync(stamp).mtimeMs ? 'sources changed since' : null;
}

const why = stale();
// `--check`: only say whether a build is due (tests).
if (process.argv.includes('--check')) {
  process.stdout.write(`${why ?? 'up to date'}\n`);
  process.exit(0);
}
if (why !== null) {
  process.stderr.write(`docent: building dist/ first (${why}): npm run build\n`);
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
if (!process.argv.includes('--build-only')) await import(pathToFileURL(entry).href);
