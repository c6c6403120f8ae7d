import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/**
 * Makes temporary folders for the calling test file (or `describe` block): each call writes `files`
 * (relative path → text) into a new folder under the system's temp folder and returns its path. All are
 * removed after the tests.
 */
export function tempFolders(prefix: string): (files?: Record<string, string>) => string {
  const roots: string[] = [];
  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });
  return (files = {}) => {
    const root = mkdtempSync(path.join(tmpdir(), prefix));
    roots.push(root);
    for (const [rel, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), content);
    }
    return root;
  };
}
