import fs from 'node:fs/promises';
import path from 'node:path';

/** The docs folder was found outside the folder it must be in when its ingestion began. */
export class DocsFolderMovedError extends Error {
  override name = 'DocsFolderMovedError';
}

export interface PinnedFolder {
  /** The path to read the folder by. */
  path: string;
  close(): Promise<void>;
}

const PROC_FD = '/proc/self/fd';

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
  if (!isInside(root, real))
    throw new DocsFolderMovedError('the docs folder now leads outside DOCENT_DOCS_ROOT');
  const proc = await fs.stat(PROC_FD).catch(() => null);
  if (proc === null) return { path: real, close: async () => {} };
  const handle = await fs.open(
    real,
    fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW,
  );
  const pinned = path.join(PROC_FD, String(handle.fd));
  try {
    // A parent swapped between the real path and the open: the folder opened is another one.
    const opened = await fs.readlink(pinned);
    if (!isInside(root, opened))
      throw new DocsFolderMovedError('the docs folder now leads outside DOCENT_DOCS_ROOT');
  } catch (error) {
    await handle.close();
    throw error;
  }
  return { path: pinned, close: () => handle.close() };
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}
