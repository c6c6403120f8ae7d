import type { Root } from 'mdast';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTable } from 'micromark-extension-gfm-table';
import remarkDirective from 'remark-directive';
import remarkFrontmatter from 'remark-frontmatter';
import remarkMdx from 'remark-mdx';
import remarkParse from 'remark-parse';
import { type Processor, unified } from 'unified';
import { isMap, isNode, isScalar, parseDocument } from 'yaml';
import {
  escapeDocusaurusHeadingIds,
  rewriteDocusaurusAdmonitionTitles,
  rewriteMkDocsBlocks,
  rewriteVitePressBlocks,
} from './frameworks/framework-blocks.ts';
import type { Warning } from './types.ts';

/**
 * GFM tables only. Full remark-gfm more than doubled parse time on mintlify-docs (autolink literals scan
 * every character and then rewrite every text node) while adding nothing to extracted text: a bare URL,
 * `~~struck~~`, `[ ]` or `[^1]` reads the same as plain text. Tables change structure, so they stay.
 * (micromark-extension-gfm-table and mdast-util-gfm-table are the packages remark-gfm itself uses.)
 */
export function remarkGfmTables(this: Processor): void {
  const data = this.data();
  data.micromarkExtensions ??= [];
  data.micromarkExtensions.push(gfmTable());
  data.fromMarkdownExtensions ??= [];
  data.fromMarkdownExtensions.push(gfmTableFromMarkdown());
}

// Built once and frozen: building a processor compiles its micromark extensions.
const mdxProcessor = unified()
  .use(remarkParse)
  .use(remarkMdx)
  .use(remarkFrontmatter, ['yaml'])
  .use(remarkGfmTables)
  .freeze();
const markdownProcessor = unified()
  .use(remarkParse)
  .use(remarkFrontmatter, ['yaml'])
  .use(remarkGfmTables)
  .freeze();
// Docusaurus and Starlight parse their pages with remark-directive: `:::tip[Title]` … `:::` admonitions
// (Starlight's asides) are directives.
const directiveMdxProcessor = mdxProcessor().use(remarkDirective).freeze();
const directiveMarkdownProcessor = markdownProcessor().use(remarkDirective).freeze();

/**
 * A docs framework's own block syntax, read as that framework reads it: `docusaurus` (admonitions as
 * remark-directive containers), `starlight` (asides, the same directives), `mkdocs` (Material's
 * admonitions and content tabs), `vitepress` (its `:::` containers); framework-blocks.ts.
 */
export type PageSyntax = 'docusaurus' | 'starlight' | 'mkdocs' | 'vitepress';

export interface ParsedSource {
  tree: Root;
  frontMatter: Record<string, unknown>;
  /** Whether the tree came from the MDX parser (imports, JSX) or plain Markdown. */
  mdx: boolean;
}

const errorLine = (error: unknown): number | undefined => {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { line?: unknown; place?: { line?: unknown; start?: { line?: unknown } } };
  if (typeof e.line === 'number') return e.line;
  if (typeof e.place?.line === 'number') return e.place.line;
  if (typeof e.place?.start?.line === 'number') return e.place.start.line;
  return undefined;
};

const errorReason = (error: unknown): string => {
  if (typeof error === 'object' && error !== null && 'reason' in error && typeof error.reason === 'string') {
    return error.reason;
  }
  return error instanceof Error ? error.message : String(error);
};

/**
 * Parses a page or snippet. `.md` files are Markdown (real ones are full of `<` and `{` that MDX rejects);
 * `.mdx` that fails to parse falls back to Markdown with a warning, so one bad tag never drops a page.
 */
export const parseSource = (
  file: string,
  written: string,
  warn: (warning: Warning) => void,
  syntax?: PageSyntax,
): ParsedSource => {
  const source =
    syntax === 'mkdocs'
      ? rewriteMkDocsBlocks(written)
      : syntax === 'docusaurus'
        ? rewriteDocusaurusAdmonitionTitles(escapeDocusaurusHeadingIds(written))
        : syntax === 'vitepress'
          ? rewriteVitePressBlocks(written)
          : written;
  const directives = syntax === 'docusaurus' || syntax === 'starlight';
  const mdxParser = directives ? directiveMdxProcessor : mdxProcessor;
  const markdownParser = directives ? directiveMarkdownProcessor : markdownProcessor;
  let tree: Root | null = null;
  let mdx = false;
  if (/\.mdx$/i.test(file)) {
    try {
      tree = mdxParser.parse(source);
      mdx = true;
    } catch (error) {
      const line = errorLine(error);
      const message = `invalid MDX (${errorReason(error)}); indexed as plain Markdown`;
      warn(line === undefined ? { file, message } : { file, line, message });
    }
  }
  tree ??= markdownParser.parse(source);
  return { tree, frontMatter: readFrontMatter(file, tree, warn), mdx };
};

const readFrontMatter = (
  file: string,
  tree: Root,
  warn: (warning: Warning) => void,
): Record<string, unknown> => {
  const first = tree.children[0];
  if (first?.type !== 'yaml') return {};
  // The YAML body starts on the line after the opening `---`.
  const bodyLine = (first.position?.start.line ?? 1) + 1;
  const doc = parseDocument(first.value, { prettyErrors: false, uniqueKeys: false });
  const firstError = doc.errors[0];
  if (firstError) {
    const line = bodyLine + (firstError.linePos?.[0]?.line ?? 1) - 1;
    warn({ file, line, message: `invalid front matter: ${firstError.message.split('\n')[0]}` });
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_FRONT_MATTER_ALIASES });
  } catch (error) {
    warn({
      file,
      line: bodyLine,
      message: `front matter could not be read (${errorReason(error)}); ignored`,
    });
    value = null;
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    if (!firstError)
      warn({ file, line: bodyLine, message: 'front matter is not a key/value mapping; ignored' });
    return {};
  }
  if (!firstError) return value as Record<string, unknown>;
  // A broken document still yields the keys before its first error, which are kept; a key whose value
  // reaches the error is dropped, as the parser's guess at it (`title: "Unclosed` read as "Unclose")
  // would be wrong.
  const errorAt = Math.min(...doc.errors.map((e) => e.pos[0]));
  const kept: Record<string, unknown> = {};
  const entries = value as Record<string, unknown>;
  if (isMap(doc.contents))
    for (const pair of doc.contents.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      const end = (
        isNode(pair.value) ? pair.value.range : isNode(pair.key) ? pair.key.range : undefined
      )?.[2];
      // An error right where a value ends (a missing closing quote) is that value's.
      if (key !== undefined && end !== undefined && end < errorAt && Object.hasOwn(entries, key))
        // Defined, not assigned: a `__proto__` key stays a key, as toJS keeps it.
        Object.defineProperty(kept, key, {
          value: entries[key],
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
  return kept;
};

/** YAML aliases a page's front matter may expand (an alias "bomb" is refused with a warning). */
const MAX_FRONT_MATTER_ALIASES = 100;
