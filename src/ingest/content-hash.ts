import { createHash, type Hash } from 'node:crypto';

/**
 * Bump whenever parsing or chunking changes what a page turns into, so every stored page is re-indexed
 * even though its source did not change.
 */
export const PARSER_VERSION = 'docent-loader-9';

/**
 * What a page's content hash covers besides its files' text: its id, labels and the site settings that
 * change what it parses to. Not its place in the navigation (order, group): one page added at the top
 * would change the place of every page after it, and re-index them all; ingest-site.ts updates the place
 * of unchanged pages in place instead.
 */
export interface HashSubject {
  path: string;
  versions: string[];
  languages: string[];
  /** The site's framework block syntax (`PageSyntax`), '' for none: it changes what a page parses to. */
  syntax: string;
  /**
   * How heading ids are made (`AnchorStyle`), when not github-slugger's: it changes every page's anchors.
   * Hashed only when set, so other sites' hashes stay as they were.
   */
  anchors?: string;
  /**
   * `seo.indexing: "all"`: a page with `hidden: true` front matter is indexed only then, so turning it
   * off must not reuse such a page. Hashed only when true, so other sites' hashes stay as they were.
   */
  indexHidden?: boolean;
}

/** What a page's content hash covers. */
export interface HashInput extends HashSubject {
  source: string;
  snippets: { file: string; source: string }[];
}

/**
 * Feeds strings to a hash length-prefixed and NUL-separated, so no two different inputs can
 * concatenate to the same byte stream.
 */
export const fieldHasher =
  (hash: Hash) =>
  (value: string): void => {
    hash.update(`${value.length}:`);
    hash.update(value);
    hash.update('\0');
  };

export const contentHash = (input: HashInput): string => {
  const hash = createHash('sha256');
  const field = fieldHasher(hash);
  field(PARSER_VERSION);
  field(input.path);
  field(input.source);
  for (const snippet of input.snippets) {
    field(snippet.file);
    field(snippet.source);
  }
  field(JSON.stringify(input.versions));
  field(JSON.stringify(input.languages));
  field(input.syntax);
  if (input.anchors !== undefined) field(`anchors:${input.anchors}`);
  if (input.indexHidden === true) field('index-hidden');
  return hash.digest('hex');
};
