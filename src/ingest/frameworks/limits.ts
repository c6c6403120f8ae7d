/**
 * Bounds on what a docs framework's config may make the readers do. Configs are untrusted content like
 * the pages: a sidebar nested ten thousand deep or listing a million entries becomes a warning, not a
 * stack overflow or minutes of work.
 */

/** Deepest sidebar/nav nesting walked (real sidebars nest 3 to 5 levels). */
export const MAX_SIDEBAR_DEPTH = 32;
/** Sidebar/nav entries walked per framework config, over every version and language. */
export const MAX_SIDEBAR_ENTRIES = 100_000;
/** Syntax nodes (JS/TS) or YAML nodes turned into values per config file, aliases expanded. */
export const MAX_STATIC_NODES = 500_000;
/** Deepest object/array nesting turned into values per config file (above 2 × MAX_SIDEBAR_DEPTH: a sidebar level is an object and a list). */
export const MAX_STATIC_DEPTH = 100;
/** Versions (Docusaurus versions.json) read; more are ignored with a warning. */
export const MAX_VERSIONS = 200;
/** Languages (locales) read; more are ignored with a warning. */
export const MAX_LANGUAGES = 100;
/** Docusaurus docs plugin instances read. */
export const MAX_DOCS_INSTANCES = 20;
/**
 * Largest framework config file read (`mkdocs.yml`, `docusaurus.config.*`, `sidebars.*`, …): configs are
 * read on the server's main thread, and a 7.8 MB one took 25 to 53 s and 2 to 4 GB. Real ones are tens of
 * kilobytes. (`docs.json`, a data file read apart, may be larger: contained-file.ts.)
 */
export const MAX_FRAMEWORK_CONFIG_BYTES = 512 * 1024;
/** Values front matter may hold per character of its text, aliases expanded (plain YAML holds under 1). */
export const FRONT_MATTER_NODES_PER_CHAR = 2;
/** Page files whose front matter is read at once. */
export const FRONT_MATTER_CONCURRENCY = 16;
