import fs from 'node:fs/promises';
import { isInsideRoot, procFdPath } from './contained-file.ts';

/** The docs folder was found outside the folder it must be in when its ingestion began. */
export class DocsFolderMovedError extends Error {
  override name = 'DocsFolderMovedError';
}

export interface PinnedFolder {
  /** The path to read the folder by. */
  path: string;
  close(): Promise<void>;
}

/**
 * A tenant's docs folder as its ingestion reads it: checked to be inside `within` (the organization's
 * folder under DOCENT_DOCS_ROOT) when the job begins, then read through an open handle on it, so that
 * the folder swapped for a link afterwards changes nothing that is read. Every reader resolves the
 * folder's path again at its first read (contained-file.ts), and a path resolved after such a swap
 * would have made the link's target the folder. On Linux the handle is `/proc/self/fd/<n>`, which every
 * thread of the process shares and which resolves to the opened folder wherever it is moved; elsewhere
 * the real path is read (the check at the start stands alone).
 */
export async function pinDocsFolder(dir: string, within: string): Promise<PinnedFolder> {
  const root = await fs.realpath(within).catch(() => {
    throw new DocsFolderMovedError('the folder DOCENT_DOCS_ROOT names for this organization does not exist');
  });
  const real = await fs.realpath(dir).catch(() => {
    throw new DocsFolderMovedError(`docs folder not found: ${dir}`);
  });
  if (!isInsideRoot(root, real))
    throw new DocsFolderMovedError('the docs folder now leads outside DOCENT_DOCS_ROOT');
  const handle = await fs.open(
    real,
    fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW,
  );
  const opened = await procFdPath(handle.fd);
  if (opened === null) {
    await handle.close();
    return { path: real, close: async () => {} };
  }
  // A parent swapped between the real path and the open: the folder opened is another one.
  if (!isInsideRoot(root, opened)) {
    await handle.close();
    throw new DocsFolderMovedError('the docs folder now leads outside DOCENT_DOCS_ROOT');
  }
  return { path: `/proc/self/fd/${handle.fd}`, close: () => handle.close() };
}
