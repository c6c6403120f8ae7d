/**
 * What the docs loader hands to storage. Parsing (navigation, MDX, chunking) is pure and knows
 * nothing about the database; the ingestion job diffs these pages against what is stored.
 */

export interface Warning {
  /** Path relative to the docs root, e.g. `docs.json` or `guides/setup.mdx`. */
  file: string;
  /** 1-based line in `file`, when the problem has one. */
  line?: number;
  message: string;
}

export interface ParsedChunk {
  /** Heading slug for deep links (`#install-on-macos`); null for the text before the first heading. */
  anchor: string | null;
  /** Headings under the page title leading to this chunk, outermost first (H2, H3 …). */
  headings: string[];
  /** Body text with components reduced to their text; code blocks kept as fenced text. */
  text: string;
  /**
   * The search analyzer's output as JSON, when the loader was asked for it: analysing where the page
   * was parsed spreads that work over the same parallel lanes.
   */
  analyzedJson?: string;
}

/** A page's source stamp (source-stamps.ts) and the files it covers, the page's own first. */
export interface PageStamp {
  stamp: string;
  files: string[];
}

/** A page's source stamp with the content hash (unprefixed, as the loader computes it) from the same reads. */
export interface StampedHash extends PageStamp {
  contentHash: string;
}

export interface ParsedPage {
  /** Page id: path under the docs root without extension, `/`-separated (`en/docs/welcome`). */
  path: string;
  title: string;
  description: string | null;
  /**
   * Version and language labels from every place the navigation puts the page, exactly as the config
   * names them. Empty means the page belongs to no version (language): it matches any filter.
   */
  versions: string[];
  languages: string[];
  /**
   * The page's place in the navigation (NavPage.order) and the group listing it there; null when the
   * navigation does not list the page (a plain Markdown folder) or lists it outside any group. Not part
   * of the content hash: moving a page in the navigation must not re-index every page after it.
   */
  navOrder: number | null;
  navGroup: string | null;
  /** Stable hash of everything that affects how the page is indexed (source, snippets, labels). */
  contentHash: string;
  chunks: ParsedChunk[];
  /**
   * Set when the caller already holds this exact page (same content hash) and parsing was skipped:
   * `title`, `description` and `chunks` are then empty and must not be stored.
   */
  reused?: true;
  /**
   * The source stamp of the files this page was read from, with the content hash computed from those
   * reads (source-stamps.ts); stored with the page when that hash is the page's. Absent when none was
   * taken (a page whose stamp was unchanged, an OpenAPI page, a file modified just before).
   */
  stamped?: StampedHash;
  /**
   * Set when parsing this page gave warnings (invalid MDX, broken front matter, a limit). Its warnings
   * are not stored, and a page reused unchanged brings none: such a page is stored under a marked hash
   * (storedHash) that the next ingestion does not reuse, so it is parsed again and still warns.
   */
  warned?: true;
  /**
   * Set when this page's parse was shared with an identical page loaded earlier in the same load (the
   * page id named here; duplicate-pages.ts): `title`, `description` and `chunks` are empty here and are
   * that page's. The streaming loader (streamDocsFolder) hands such pages on like this so nothing holds
   * the earlier page's chunks; loadDocsFolder fills them in.
   */
  sameAs?: string;
}

export interface NavigationSummary {
  /**
   * Where the navigation came from: Mintlify's `docs.json` or `mint.json`, another docs framework's
   * config (src/ingest/frameworks/), or `none` for a plain Markdown folder.
   */
  kind: 'docs.json' | 'mint.json' | 'docusaurus' | 'mkdocs' | 'starlight' | 'vitepress' | 'none';
  versions: string[];
  languages: string[];
  /** Site name from the config, when it has one. */
  name: string | null;
}

export interface LoadedSite {
  navigation: NavigationSummary;
  pages: ParsedPage[];
  warnings: Warning[];
  /** Pages excluded on purpose (hidden, noindex, searchable: false). */
  skipped: number;
  /**
   * The repository's instructions for the assistant (`.docent/Assistant.md`, `.mintlify/Assistant.md`),
   * added to the site's own in the system prompt; null when it has none.
   */
  assistantInstructions: { file: string; text: string } | null;
}

export type LoadProgress = (done: number, total: number) => void;
