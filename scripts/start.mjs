// `npm start`: runs the compiled server (dist/), so production never transpiles TypeScript at start.
// On a fresh checkout, or when a source file is newer than the last build, it builds first.
// `node scripts/start.mjs --build-only` does just that check and build (benchmarks and tests use it).
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
    else if (item.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
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
  const newest = Math.max(...sources.map(newestSource));
  return newest > fs.statSync(stamp).mtimeMs ? 'sources changed since' : null;
}

const why = stale();
if (why !== null) {
  process.stderr.write(`docent: building dist/ first (${why}): npm run build\n`);
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
if (!process.argv.includes('--build-only')) await import(pathToFileURL(entry).href);
