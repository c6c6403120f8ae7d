import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from './testing/paths.ts';
import { DOCENT_VERSION } from './version.ts';

it('names the release package.json names', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  expect(DOCENT_VERSION).toBe(pkg.version);
});
