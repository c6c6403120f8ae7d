import fs, { constants } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The one way ingestion reads a file of a docs folder. Docs folders are untrusted content (a git checkout
 * can hold any symlink), so a path inside the folder is read only when its real path, every symlink
 * resolved, is still inside the folder's real path, when it is a regular file (a FIFO would block the
 * read forever, a device or /proc file never ends), and when it fits a size limit. A symlink that stays
 * inside the folder is followed: repositories link `README.md` to `index.mdx` and the like. The folder's
 * owner may change it while it is read, so the checks are made again on the file once it is open
 * (`openedInside`): a folder on the way swapped for a symlink after the path checks leads nowhere.
 *
 * Hard links are read like any file: one inside the folder may be a second name of a file outside it,
 * but making one takes a shell on the same file system, and where the kernel protects hard links (Linux's
 * default `fs.protected_hardlinks = 1`) only to a file its maker owns or may read and write already.
 *
 * A refusal carries a reason that never mentions the target (neither its path nor its bytes): it ends up
 * in job warnings that any admin of the site reads. Nothing in a `.git` folder is read, whatever leads
 * there.
 */

/** Largest page or snippet file read (about 3× the largest page of the reference corpora, 726 KB). */
export const MAX_PAGE_FILE_BYTES = 2 * 1024 * 1024;
/** Largest `docs.json`/`mint.json` or `$ref` file read (crewai's docs.json is 2.3 MB of navigation). */
export const MAX_CONFIG_FILE_BYTES = 8 * 1024 * 1024;

const READ_CHUNK_BYTES = 64 * 1024;
// O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer that never comes. O_NOFOLLOW:
// the path opened is the resolved one, so a symlink in its place now was put there after the check.
// O_NOFOLLOW guards the last component only: a folder on the way may have become a symlink since the
// check, so what was opened is checked again once it is open (`openedInside`).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

export type ContainedText =
  /**
   * `stamp`: what the file was when it was read (`FileStamp`), or null when it had been modified too
   * recently for its stamp to vouch for what was read (see `RACY_MS`).
   */
  | { ok: true; text: string; stamp: string | null }
  /** `missing`: nothing is there (an optional file may be absent without a warning); otherwise refused. */
  | { ok: false; missing: boolean; reason: string };

export interface ContainedFolder {
  /** Reads `rel` (relative to the root, `/`-separated) as UTF-8, or says why not. Never throws. */
  readText(rel: string, maxBytes: number): Promise<ContainedText>;
  /**
   * The `FileStamp` of what `rel` is now, without reading it; null when it is missing or not a regular
   * file. Never throws. A stamp equal to one `readText` gave means the very file read then, untouched
   * since: what was read then (through every check above) is what the file holds now.
   */
  stampOf(rel: string): Promise<string | null>;
  /**
   * True when `rel` is a symbolic link to nothing inside the folder, which `readText` reports as missing:
   * for a config, a file that cannot be read rather than a folder without one. Never throws; nothing
   * outside the folder is looked at.
   */
  isDanglingLink(rel: string): Promise<boolean>;
}

/**
 * A file's identity and change marks, as one string: device, inode, size, and modification and change
 * times in nanoseconds. Any write to the file moves its change time (which no program can set back), and
 * a file put in its place has another inode: two equal stamps are the same, unchanged file.
 */
export type FileStamp = string;

/**
 * A file modified or changed less than this long before it was read gets no stamp: on a file system that
 * keeps times to a coarse tick (a few milliseconds on Linux before 6.13, a second on HFS+ or ext3, two on
 * FAT), a write just after the read could leave every time as it was.
 */
export const RACY_MS = 2_000;

const stampOfStats = (info: fs.BigIntStats): FileStamp =>
  `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;

export const REFUSAL = {
  outsidePath: 'path leads outside the docs folder',
  outsideLink: 'symbolic link leading outside the docs folder',
  gitInternals: "inside a .git folder (a repository's own files, its credentials among them)",
  linkLoop: 'symbolic link loop',
  notRegular: 'not a regular file',
  missing: 'file not found',
  denied: 'permission denied',
  unreadable: 'cannot be read',
} as const;

export const tooLargeReason = (maxBytes: number): string => `larger than ${maxBytes} bytes`;

const refused = (reason: string): ContainedText => ({ ok: false, missing: false, reason });

// Error messages name the absolute path, so only the code is turned into a reason.
const refusalOf = (error: unknown): ContainedText => {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return { ok: false, missing: true, reason: REFUSAL.missing };
    case 'ELOOP':
      return refused(REFUSAL.linkLoop);
    case 'EACCES':
    case 'EPERM':
      return refused(REFUSAL.denied);
    case 'EISDIR':
      return refused(REFUSAL.notRegular);
    default:
      return refused(REFUSAL.unreadable);
  }
};

/**
 * True when `real` is in a `.git` folder below `realRoot`: a git source cloned with the docs at its root
 * has its own `.git` inside the docs folder, holding the remote's URL (and a token in it), and a
 * repository may link a page there (`config.md -> .git/config`).
 */
const isGitInternal = (realRoot: string, real: string): boolean =>
  path
    .relative(realRoot, real)
    .split(path.sep)
    .some((segment) => segment.toLowerCase() === '.git');

/** True when `real` is `realRoot` or below it (both real, absolute paths). */
export const isInsideRoot = (realRoot: string, real: string): boolean => {
  const relative = path.relative(realRoot, real);
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
};

// Node's callback file system calls, promisified: the promise API's `FileHandle` cost about twice the
// main thread's time per file (measured on crewai-docs' 1,524 files: 440 against 250 ms of CPU), and an
// unchanged re-ingestion is mostly this.
const openFile = promisify(fs.open);
const fstatFile = (fd: number): Promise<fs.BigIntStats> =>
  new Promise((resolve, reject) =>
    fs.fstat(fd, { bigint: true }, (error, stats) => (error ? reject(error) : resolve(stats))),
  );
const statBig = (file: string): Promise<fs.BigIntStats> =>
  new Promise((resolve, reject) =>
    fs.stat(file, { bigint: true }, (error, stats) => (error ? reject(error) : resolve(stats))),
  );
const readFile = promisify(fs.read);
const closeFile = promisify(fs.close);
const statPath = promisify(fs.stat);
const lstatBig = (file: string): Promise<fs.BigIntStats> =>
  new Promise((resolve, reject) =>
    fs.lstat(file, { bigint: true }, (error, stats) => (error ? reject(error) : resolve(stats))),
  );
const realPath = promisify(fs.realpath.native);
const lstatPath = promisify(fs.lstat);
const readLink = promisify(fs.readlink);

/**
 * Where the open file `fd` is now, as Linux's /proc/self/fd link names it (the kernel's path of the very
 * file opened, whatever path led there); null where there is no such link (macOS, a system without /proc).
 */
export const procFdPath = async (fd: number): Promise<string | null> => {
  try {
    return await readLink(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
};

/**
 * Why the file open as `fd` (its `fstat` is `opened`) must not be read, or null when it is inside the
 * folder. The path checks before the open looked at a path: between them and the open, the folder's
 * owner may have put a symlink in place of a folder on the way (`renameat2(RENAME_EXCHANGE)` in a loop),
 * and the open then followed it out of the folder. On Linux the file's own path, read from
 * /proc/self/fd, must be inside the real root and not in a `.git` folder. Elsewhere the checked path,
 * resolved again after the open, must still be itself (no symlink on the way) and name the same file
 * (device and inode) as the one open; a swap timed to pass both resolutions in turn is not excluded there.
 */
export const openedInside = async (
  fd: number,
  opened: fs.BigIntStats,
  realRoot: string,
  real: string,
  fdPath: (fd: number) => Promise<string | null> = procFdPath,
): Promise<string | null> => {
  const where = await fdPath(fd);
  if (where !== null) {
    // A regular file's link is an absolute path (with " (deleted)" after it once unlinked).
    if (!path.isAbsolute(where) || !isInsideRoot(realRoot, where)) return REFUSAL.outsideLink;
    return isGitInternal(realRoot, where) ? REFUSAL.gitInternals : null;
  }
  try {
    if ((await realPath(real)) !== real) return REFUSAL.outsideLink;
    const now = await lstatBig(real);
    return now.dev === opened.dev && now.ino === opened.ino ? null : REFUSAL.outsideLink;
  } catch {
    return REFUSAL.outsideLink;
  }
};

/**
 * A file's text: UTF-8, or UTF-16 when it starts with a UTF-16 byte order mark (editors on Windows save
 * Markdown so; read as UTF-8 it was indexed as noise). A UTF-8 byte order mark is left for the readers
 * that skip it, as before.
 */
export const decodeText = (bytes: Buffer): string => {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return bytes.toString('utf8');
};

/** Reads at most `maxBytes + 1` bytes, so a file that grows (or lies about its size) cannot pass the limit. */
const readBounded = async (realRoot: string, real: string, maxBytes: number): Promise<ContainedText> => {
  const openedAt = Date.now();
  const fd = await openFile(real, OPEN_FLAGS);
  try {
    // The checks before the open looked at the path; these look at what was opened. Taken before
    // the read, so a write during the read moves the times away from the stamp.
    const info = await fstatFile(fd);
    if (!info.isFile()) return refused(REFUSAL.notRegular);
    const outside = await openedInside(fd, info, realRoot, real);
    if (outside !== null) return refused(outside);
    // Both times: a copy that keeps the old modification time (`cp -p`, tar) has a new change time.
    const settled = Math.max(Number(info.mtimeMs), Number(info.ctimeMs)) < openedAt - RACY_MS;
    const stamp = settled ? stampOfStats(info) : null;
    // One read in the usual case: the size just seen plus a byte, so a short read is the end. A file
    // that grew since is read on, in chunks, up to the limit.
    const chunks: Buffer[] = [];
    let total = 0;
    let want = Number(info.size) + 1;
    while (total <= maxBytes) {
      const buffer = Buffer.allocUnsafe(Math.min(want, maxBytes + 1 - total));
      const { bytesRead } = await readFile(fd, buffer, 0, buffer.length, total);
      if (bytesRead > 0) chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (bytesRead < buffer.length) break;
      want = READ_CHUNK_BYTES;
    }
    if (total > maxBytes) return refused(tooLargeReason(maxBytes));
    const [only] = chunks;
    return {
      ok: true,
      text: decodeText(chunks.length === 1 && only ? only : Buffer.concat(chunks, total)),
      // A file that grew past the size seen has been written meanwhile: what was read is no stamp's.
      stamp: total > Number(info.size) ? null : stamp,
    };
  } finally {
    await closeFile(fd);
  }
};

/** `rel` normalized, `/`-separated; null when its path alone leads outside the folder. */
const insidePath = (rel: string): string | null => {
  const normalized = path.posix.normalize(rel.replace(/\\/g, '/'));
  return path.posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../')
    ? null
    : normalized;
};

export interface ContainedFolderOptions {
  /** For tests: runs after the path checks of `readText`, just before the open, with the path checked. */
  beforeOpen?: (real: string) => void | Promise<void>;
}

/**
 * The folder's real path, or null when that path is not the folder `root` names (same device and
 * inode): a resolution steered elsewhere, such as an open folder's /proc/self/fd link whose text became
 * `<path> (deleted)` once the folder was removed, which realpath goes on to resolve as a path (a link a
 * tenant placed under that name).
 */
const resolvedRoot = async (root: string): Promise<string | null> => {
  const [named, real] = await Promise.all([statBig(root), realPath(root)]);
  const resolved = await statBig(real);
  return named.dev === resolved.dev && named.ino === resolved.ino ? real : null;
};

export const containedFolder = (root: string, options: ContainedFolderOptions = {}): ContainedFolder => {
  let realRoot: Promise<string | null> | undefined;
  return {
    async readText(rel, maxBytes) {
      try {
        const normalized = insidePath(rel);
        if (normalized === null) return refused(REFUSAL.outsidePath);
        realRoot ??= resolvedRoot(root);
        const base = await realRoot;
        if (base === null) return refused(REFUSAL.outsideLink);
        const real = await realPath(path.join(base, normalized));
        if (!isInsideRoot(base, real)) return refused(REFUSAL.outsideLink);
        if (isGitInternal(base, real)) return refused(REFUSAL.gitInternals);
        // stat before opening, so that devices and FIFOs are not even opened in the usual case.
        const info = await statPath(real);
        if (!info.isFile()) return refused(REFUSAL.notRegular);
        if (info.size > maxBytes) return refused(tooLargeReason(maxBytes));
        await options.beforeOpen?.(real);
        return await readBounded(base, real, maxBytes);
      } catch (error) {
        return refusalOf(error);
      }
    },
    async stampOf(rel) {
      const normalized = insidePath(rel);
      if (normalized === null) return null;
      // No real-path check: nothing is read, and a stamp matches only the file that readText read.
      const info = await statBig(path.join(root, normalized)).catch(() => null);
      return info?.isFile() ? stampOfStats(info) : null;
    },
    async isDanglingLink(rel) {
      const normalized = insidePath(rel);
      if (normalized === null) return false;
      try {
        realRoot ??= resolvedRoot(root);
        const base = await realRoot;
        if (base === null) return false;
        // The link's own folder resolved: through a folder linked out of this one, lstat would look outside.
        const full = path.join(base, normalized);
        const folder = await realPath(path.dirname(full));
        if (!isInsideRoot(base, folder)) return false;
        return (await lstatPath(path.join(folder, path.basename(full)))).isSymbolicLink();
      } catch {
        return false;
      }
    },
  };
};
