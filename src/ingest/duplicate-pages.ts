import { createHash } from 'node:crypto';
import path from 'node:path';
import { fieldHasher, PARSER_VERSION } from './content-hash.ts';
import type { PageCandidate, PageResult } from './load-page.ts';
import type { Warning } from './types.ts';

/**
 * Identical pages in one ingestion share one parse. Versioned docs repeat most pages in every version
 * folder, and a site assembled from copies repeats all of them; parsing (in the page workers) is most
 * of what a cold ingestion costs, so a page whose parse would come out the same as one already parsed
 * takes that one's result instead, relabelled with its own id, labels, navigation place and content
 * hash. This is not parser speed: a site without repeated pages gains nothing.
 *
 * When is the parse the same? A page's content hash (content-hash.ts) cannot say: it covers the page's
 * path and the snippet files by name, so two copies never share it. What the parse (load-page.ts)
 * reads is: the page's source; the file's extension (`.md` and `.mdx` parse differently); the page id's
 * last segment (the title of a page that names none); the first language label (the analyzer's
 * language); and the snippets its imports reach, by text and extension, with which import names which
 * file (importShape: the renderer knows a snippet by its text and, for cycles, by which file it is).
 * The share key hashes exactly those (an import of a missing file too: it is a position of its own in
 * the shape). Everything else that depends on where a page sits is in its warnings (they name files),
 * or the snippet files it reports, or comes from `openapi:` front matter or an OpenAPI operation. So a
 * page is only shared when each warning of its parse names one of the files of its shape and says
 * nothing about where they are (no file name, page id or folder in its message: a missing snippet's
 * "snippet "/snippets/x" not found" or an invalid expression's message is the same text for every
 * copy, and moves to the sharer's file at the same position), its snippet files are the ones its import
 * scan found, and the content hash the worker computed is the one the main thread computed for it (the
 * same inputs); pages with `openapi:` front matter and generated operation pages never get a key.
 * Anything else is parsed on its own, as before.
 */

/** One node of a page's import shape (import-closure.ts: importShape). */
export interface ShapeNode {
  extension: string;
  text: string;
  imports: number[];
}

export interface ShareKeyInput {
  /** The page file, relative to the docs root. */
  file: string;
  /** The page id. */
  id: string;
  language: string | null;
  /** The page itself first, then the snippets its imports reach. */
  shape: ShapeNode[];
}

export const shareKey = (input: ShareKeyInput): string => {
  const hash = createHash('sha256');
  const field = fieldHasher(hash);
  field(PARSER_VERSION);
  field(path.posix.extname(input.file).toLowerCase());
  field(input.id.slice(input.id.lastIndexOf('/') + 1));
  field(input.language ?? '');
  for (const node of input.shape) {
    field(node.extension);
    field(node.text);
    field(node.imports.join(','));
  }
  return hash.digest('base64url');
};

/**
 * Keys remembered at most: about 200 bytes each, so the map stays a few megabytes however large the site
 * is. Past it, pages with new keys are parsed on their own (and a repeat of them is parsed again).
 */
export const MAX_SHARED_PARSES = 65_536;

/** A shared parse's warning, by the position in the shape of the file it names. */
export interface PlacedWarning {
  node: number;
  line?: number;
  message: string;
}

/**
 * What a shared parse gave: a page (named by its id, whose content the sharer takes) or a skip, with
 * its warnings.
 */
export type SharedOutcome = ({ id: string } | { skipped: true }) & { warnings: PlacedWarning[] };

export interface ShareInfo {
  key: string;
  /** The content hash the worker would compute for this page (the main thread's, same inputs). */
  contentHash: string;
  /** The snippet files the page's import scan found. */
  snippetFiles: string[];
  /** The files of the page's shape by position, the page's own first (import-closure.ts importShape). */
  shapeFiles: string[];
}

/**
 * Which parse each share key went to, in one load. The first page with a key parses; a later one (by its
 * place in the load's page order) waits for that parse and takes it if it can be shared, else parses
 * itself. An earlier page never waits for a later one: the loader hands pages on in order, and the
 * page shared from must be handed on first (the ingestion copies its stored rows).
 */
export class ParseSharing {
  private readonly firsts = new Map<string, { index: number; outcome: Promise<SharedOutcome | null> }>();
  /** Pages that took another page's parse instead of being parsed. */
  shared = 0;

  /**
   * The parse to wait for (resolving to null when it cannot be shared), or null: parse this page, and
   * report how it went with `settle` when given one.
   */
  claim(
    key: string,
    index: number,
  ):
    | { wait: Promise<SharedOutcome | null> }
    | { wait: null; settle: ((outcome: SharedOutcome | null) => void) | null } {
    const first = this.firsts.get(key);
    if (first !== undefined)
      return first.index < index ? { wait: first.outcome } : { wait: null, settle: null };
    if (this.firsts.size >= MAX_SHARED_PARSES) return { wait: null, settle: null };
    let settle: (outcome: SharedOutcome | null) => void = () => {};
    const outcome = new Promise<SharedOutcome | null>((resolve) => {
      settle = resolve;
    });
    this.firsts.set(key, { index, outcome });
    return { wait: null, settle };
  }
}

const sameFiles = (a: readonly string[], b: readonly string[]): boolean => {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((file) => set.has(file));
};

/**
 * The parse's warnings by shape position, or null when one could depend on where the page is: it names
 * a file outside the shape, or its message quotes a file of the shape, the page's id or its folder.
 */
const placedWarnings = (result: PageResult, info: ShareInfo, id: string): PlacedWarning[] | null => {
  if (result.warnings.length === 0) return [];
  const folder = path.posix.dirname(info.shapeFiles[0] ?? '');
  const places = [...info.shapeFiles, id, ...(folder === '.' ? [] : [folder])];
  const placed: PlacedWarning[] = [];
  for (const warning of result.warnings) {
    const node = info.shapeFiles.indexOf(warning.file);
    if (node < 0 || places.some((place) => warning.message.includes(place))) return null;
    placed.push(
      warning.line === undefined
        ? { node, message: warning.message }
        : { node, line: warning.line, message: warning.message },
    );
  }
  return placed;
};

/** What a page's own parse offers to later identical pages: null when it cannot be shared (see above). */
export const outcomeToShare = (result: PageResult, info: ShareInfo, id: string): SharedOutcome | null => {
  const warnings = placedWarnings(result, info, id);
  if (warnings === null) return null;
  if (result.page === null) return result.skipped ? { skipped: true, warnings } : null;
  if (result.page.contentHash !== info.contentHash) return null;
  if (!sameFiles(result.snippetFiles, info.snippetFiles)) return null;
  return { id: result.page.path, warnings };
};

/** The shared parse's warnings, each on the sharer's file at its position. */
const ownWarnings = (outcome: SharedOutcome, info: ShareInfo): Warning[] =>
  outcome.warnings.map(({ node, line, message }) => {
    const file = info.shapeFiles[node] ?? '';
    return line === undefined ? { file, message } : { file, line, message };
  });

/** The result of a page that takes a shared parse: its own labels and hash, the other page's content. */
export const sharedResult = (
  candidate: PageCandidate,
  outcome: SharedOutcome,
  info: ShareInfo,
): PageResult =>
  'skipped' in outcome
    ? { page: null, skipped: true, warnings: ownWarnings(outcome, info), snippetFiles: [] }
    : {
        page: {
          path: candidate.id,
          title: '',
          description: null,
          versions: candidate.versions,
          languages: candidate.languages,
          navOrder: candidate.navOrder,
          navGroup: candidate.navGroup,
          contentHash: info.contentHash,
          chunks: [],
          sameAs: outcome.id,
        },
        skipped: false,
        warnings: ownWarnings(outcome, info),
        snippetFiles: info.snippetFiles,
      };
