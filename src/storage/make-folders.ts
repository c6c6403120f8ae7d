import fs from 'node:fs';
import path from 'node:path';

/**
 * Makes `dir` and any missing parents, one level at a time. Node 20's `mkdir(dir, { recursive: true })`
 * never returns for some unwritable parents (any path under `/proc`, measured): a misconfigured data
 * folder would hang the server at start instead of failing with the reason.
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); !fs.existsSync(at); at = path.dirname(at)) {
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) {
    try {
      fs.mkdirSync(folder);
    } catch (error) {
      // Made meanwhile by another process: what was asked for is there.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
