import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `../shared` beside the repository: read-only corpora, eval sets and specs. */
export const sharedDir = path.resolve(repoRoot, '../shared');

export const corpusDir = (name: string): string => path.join(sharedDir, 'corpora', name);
export const evalSetDir = (name: string): string => path.join(sharedDir, 'eval', name);
