import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './paths.ts';

/**
 * Builds the widget from the sources under test into a folder of its own, so test servers never serve a
 * stale `dist/` (nor race a `npm run build` that a test starts). Returns the folder.
 */
export function buildTestWidget(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-widget-'));
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-widget.mjs'), dir], {
    stdio: 'pipe',
  });
  return dir;
}
