import path from 'node:path';
import type { ImportDeclaration, Program } from 'estree';
import type { Root } from 'mdast';
import { type ContainedFolder, containedFolder, MAX_PAGE_FILE_BYTES } from './contained-file.ts';
import { MAX_SNIPPET_DEPTH } from './ingest-limits.ts';
import { parseCostProblem } from './parse-cost.ts';
import { type PageSyntax, type ParsedSource, parseSource } from './parse-markdown.ts';
import type { Warning } from './types.ts';

/**
 * What a component name means in one file: a snippet file to inline (relative path), or null for an
 * import we deliberately do not inline (React components from .jsx/.js, named exports, npm packages).
 */
export type ImportScope = Map<string, string | null>;

export interface LoadedSnippet {
  file: string;
  source: string;
  tree: Root;
  imports: ImportScope;
}

interface SnippetLoad {
  snippet: LoadedSnippet | null;
  /** Problems reading or parsing the snippet itself; reported with every page that reaches it (deduped later). */
  warnings: Warning[];
}

/** Snippets reachable from one page, ready for synchronous rendering. */
export interface ResolvedSnippets {
  scope: ImportScope;
  byFile: Map<string, LoadedSnippet>;
  /** Reachable snippet files in first-visit order, for the page's content hash. */
  files: string[];
  warnings: Warning[];
}

interface ImportSpec {
  localName: string;
  source: string;
  isDefault: boolean;
  line: number | undefined;
}

const CODE_EXTENSIONS = /\.(jsx|js|tsx|ts|mjs|cjs|json)$/i;

const importsOf = (tree: Root): ImportSpec[] => {
  const specs: ImportSpec[] = [];
  for (const node of tree.children) {
    if (node.type !== 'mdxjsEsm') continue;
    const program = (node.data as { estree?: Program | null } | undefined)?.estree;
    if (!program) continue;
    for (const statement of program.body) {
      if (statement.type !== 'ImportDeclaration') continue;
      const decl = statement as ImportDeclaration;
      if (typeof decl.source.value !== 'string') continue;
      const line = decl.loc?.start.line ?? node.position?.start.line;
      for (const specifier of decl.specifiers) {
        specs.push({
          localName: specifier.local.name,
          source: decl.source.value,
          isDefault: specifier.type === 'ImportDefaultSpecifier',
          line,
        });
      }
    }
  }
  return specs;
};

/**
 * Loads and caches snippet files across the whole site: the same few snippets are imported by hundreds of
 * pages (unstructured-docs), so each is read and parsed once.
 */
export class SnippetStore {
  private readonly cache = new Map<string, Promise<SnippetLoad>>();
  private readonly folder: ContainedFolder;

  constructor(
    root: string,
    private readonly files: ReadonlySet<string>,
    private readonly syntax?: PageSyntax,
  ) {
    this.folder = containedFolder(root);
  }

  /** Every snippet file any page used; with a config these are fragments, not orphan pages. */
  usedFiles(): string[] {
    return [...this.cache.keys()];
  }

  /** Builds a file's import scope; warnings point at the importing file and line. */
  scopeFor(tree: Root, file: string, warnings: Warning[]): ImportScope {
    const scope: ImportScope = new Map();
    for (const spec of importsOf(tree)) {
      scope.set(spec.localName, this.resolveImport(file, spec, warnings));
    }
    return scope;
  }

  private resolveImport(fromFile: string, spec: ImportSpec, warnings: Warning[]): string | null {
    const { source } = spec;
    const local = source.startsWith('/') || source.startsWith('./') || source.startsWith('../');
    if (!local || CODE_EXTENSIONS.test(source)) return null;
    // A named import from an .mdx file is one of its `export`s (a value), not its content.
    if (!spec.isDefault) return null;
    const joined = source.startsWith('/')
      ? path.posix.normalize(source.slice(1))
      : path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), source));
    const candidates = /\.(mdx|md)$/i.test(joined) ? [joined] : [`${joined}.mdx`, `${joined}.md`, joined];
    const found = candidates.find((c) => this.files.has(c));
    if (found) return found;
    const message = `snippet "${source}" not found`;
    warnings.push(
      spec.line === undefined ? { file: fromFile, message } : { file: fromFile, line: spec.line, message },
    );
    return null;
  }

  private load(file: string): Promise<SnippetLoad> {
    let pending = this.cache.get(file);
    if (!pending) {
      pending = this.read(file);
      this.cache.set(file, pending);
    }
    return pending;
  }

  private async read(file: string): Promise<SnippetLoad> {
    const warnings: Warning[] = [];
    const read = await this.folder.readText(file, MAX_PAGE_FILE_BYTES);
    if (!read.ok) {
      warnings.push({ file, message: `cannot read snippet (${read.reason}); not inlined` });
      return { snippet: null, warnings };
    }
    const { text: source } = read;
    const tooCostly = parseCostProblem(source);
    if (tooCostly !== null) {
      warnings.push({ file, message: `${tooCostly}; not inlined` });
      return { snippet: null, warnings };
    }
    const parsed: ParsedSource = parseSource(file, source, (w) => warnings.push(w), this.syntax);
    const imports = this.scopeFor(parsed.tree, file, warnings);
    return { snippet: { file, source, tree: parsed.tree, imports }, warnings };
  }

  /**
   * Loads what a page's imports reach, down to the depth the renderer inlines (and one more, as
   * import-closure.ts hashes it): a chain of snippets past it costs nothing to parse. Loading is
   * breadth-first over cached per-file promises that never wait on each other, so an import cycle
   * cannot deadlock; the renderer stops cycles.
   */
  async resolve(scope: ImportScope): Promise<ResolvedSnippets> {
    const byFile = new Map<string, LoadedSnippet>();
    const order: string[] = [];
    const warnings: Warning[] = [];
    const seen = new Set<string>();
    let frontier = [...scope.values()].filter((f): f is string => f !== null);
    for (let depth = 0; frontier.length > 0 && depth <= MAX_SNIPPET_DEPTH + 1; depth++) {
      const batch = [...new Set(frontier)].filter((f) => !seen.has(f));
      for (const f of batch) seen.add(f);
      const loaded = await Promise.all(batch.map((f) => this.load(f)));
      frontier = [];
      for (const { snippet, warnings: own } of loaded) {
        warnings.push(...own);
        if (!snippet) continue;
        byFile.set(snippet.file, snippet);
        order.push(snippet.file);
        for (const next of snippet.imports.values())
          if (next !== null && !seen.has(next)) frontier.push(next);
      }
    }
    return { scope, byFile, files: order, warnings };
  }
}
