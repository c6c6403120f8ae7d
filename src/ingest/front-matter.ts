/**
 * A page's front matter: the `---` lines at the very start, as remark-frontmatter delimits them. The
 * first group is the block's text. Read without parsing the page, by the checks that run before a parse.
 */
export const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?(?:\n|$)/;

/** The front matter block's text, or null when the source has none. */
export const frontMatterBlock = (source: string): string | null => FRONT_MATTER.exec(source)?.[1] ?? null;
