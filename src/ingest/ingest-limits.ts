/**
 * What one docs folder may cost to ingest. Docs repositories are untrusted content: each limit below
 * turns an input that would cost unbounded time or memory into a warning (the page or entry is left
 * out) or, for the folder as a whole, a failed ingestion that names the limit, while the site keeps
 * serving its last good version. Per-file read limits are in contained-file.ts, per-page parse limits
 * (time, worker memory) in page-loader-pool.ts.
 */

/** Directory entries the listing may visit (files, folders, links): a folder past it fails. */
export const MAX_DOCS_FOLDER_ENTRIES = 200_000;
/** Folder nesting below the docs root; deeper folders are skipped with a warning. */
export const MAX_DOCS_FOLDER_DEPTH = 32;
/**
 * `.md`/`.mdx` files in one docs folder: a folder with more fails. Ingestion streams pages to the
 * database (page-staging.ts), so a larger site costs time, not memory: what it keeps per page is a
 * file name and a small record (hash, navigation place), a few hundred bytes.
 */
export const MAX_DOCS_PAGE_FILES = 150_000;
/** Bytes of all `.md`/`.mdx` files together: a folder with more fails (bounds the time, as above). */
export const MAX_DOCS_TOTAL_BYTES = 1024 * 1024 * 1024;

/** Snippets inlined inside snippets inlined inside a page: deeper ones are not inlined. */
export const MAX_SNIPPET_DEPTH = 8;
/**
 * Source characters one page may expand to with every snippet it inlines (each inclusion counted again):
 * snippets importing each other several times fan out exponentially. Past it, no further snippet is
 * inlined into that page.
 */
export const MAX_PAGE_EXPANDED_CHARS = 4 * 1024 * 1024;
/** Chunks indexed for one page; the rest of a longer page is not indexed. */
export const MAX_PAGE_CHUNKS = 2_000;
/**
 * Table cells in one page, counted before parsing: a GFM table costs the parser a few kilobytes per
 * cell, so a 2 MB page of one-character cells would need gigabytes. A page with more is skipped.
 */
export const MAX_TABLE_CELLS = 25_000;

/**
 * The parser builds a tree of about a kilobyte per construct, so a 2 MB page of one-character
 * constructs needs gigabytes. Before a page or snippet is parsed, its constructs are estimated from
 * its source; one over a limit is skipped. The largest pages of the corpora we test on have under
 * 4,000 non-blank lines and 35,000 markup characters.
 */
/** Non-blank lines of one page or snippet. */
export const MAX_PAGE_LINES = 20_000;
/**
 * Characters that open Markdown or MDX constructs (`* _ \` [ < | # \ &`) in one page or snippet: the
 * shared corpora's most is 40,303 (a generated schema reference).
 */
export const MAX_PAGE_MARKUP_CHARS = 100_000;
/**
 * Underlined (setext) headings in one page or snippet: the parser's cost grows faster than their
 * number (2,000 took 3.8 s, 4,000 took 19 s), and the shared corpora have at most 30 underline lines.
 */
export const MAX_SETEXT_HEADINGS = 500;
/**
 * Lists and block quotes one line opens (`> > 1. - x`): the parser's cost grows with the nesting
 * (2,000 list markers on one line took 1 s, 40,000 quote markers 55 s); the corpora nest 2 at most.
 */
export const MAX_LINE_NESTING = 32;
/**
 * Lists opened inside lists on one line, over a whole page or snippet (a line's list markers past its
 * first, summed; outside code): the parser's cost grows with the square of their number (4,000 lines
 * of `- - x` took 19 s; of `> - x`, 2.4 s). The corpora: at most 28.
 */
export const MAX_NESTED_MARKERS = 500;
/**
 * Indentation, in columns (a tab to the next multiple of 4): lists nested by indentation cost the
 * parser more per line the deeper they go (200 lines each one level deeper took 1.7 s, 1,000 took 46 s;
 * 20,000 lines 128 levels deep, 71 s). One line may be indented this much (the corpora: 39)…
 */
export const MAX_LINE_INDENT = 128;
/** …and all lines of a page or snippet together this much (the corpora: 24,560). */
export const MAX_PAGE_INDENT_COLUMNS = 150_000;

/** A docs folder over one of the folder-wide limits above; the ingestion fails with this message. */
export class DocsFolderLimitError extends Error {
  override name = 'DocsFolderLimitError';
}
