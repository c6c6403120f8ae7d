import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../testing/paths.ts';
import { errorStatus } from './errors.ts';

/** The `| code | status |` rows of a Markdown table, as `code status`. */
const documented = (file: string): Set<string> => {
  const text = fs.readFileSync(path.join(repoRoot, file), 'utf8');
  return new Set([...text.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => `${m[1]} ${m[2]}`));
};

describe('the error codes', () => {
  it('are each documented with their status, in the README and the API reference', () => {
    const codes = Object.entries(errorStatus).map(([code, status]) => `${code} ${status}`);
    for (const file of ['README.md', 'docs/api-reference/errors.mdx'])
      expect(
        [...documented(file)].filter((row) => (row.split(' ')[0] ?? '') in errorStatus).sort(),
        file,
      ).toEqual(codes.sort());
  });
});
