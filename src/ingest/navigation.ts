import { stat } from 'node:fs/promises';
import path from 'node:path';
import { containedFolder, MAX_CONFIG_FILE_BYTES } from './contained-file.ts';
import type { AnchorStyle } from './heading-anchors.ts';
import { jsonErrorOffset, lineOfJsonString, positionAt } from './json-position.ts';
import { parseOperationRef, specFileOf } from './openapi/operation-ref.ts';
import type { NavigationSummary, Warning } from './types.ts';
import type { WarningSink } from './warnings.ts';

/** One page the navigation lists, merged over every place it appears. */
export interface NavPage {
  /** Page id: the page's URL path under the site's base URL, without a leading slash. */
  id: string;
  /**
   * The Markdown file (relative to the root) when it is not `<id>.mdx` or `<id>.md`: frameworks whose
   * URLs differ from their file paths (Docusaurus versions, MkDocs `index.md`) say which file it is.
   */
  file?: string;
  /** The entry as written (`/quickstart.mdx`), to find its line in the config for warnings. */
  raw: string;
  /** Config file (relative to the root) of the first place that lists the page. */
  configFile: string;
  versions: string[];
  languages: string[];
  /** Every placement is inside a hidden (and not `searchable: true`) tab/group/…: not indexed. */
  hidden: boolean;
  /**
   * Where the page first shows in the navigation (its first visible place, when an earlier one is
   * hidden): increasing along the navigation, not contiguous. llms.txt lists pages in this order.
   */
  order: number;
  /** `group` of the nearest enclosing group at that place; null outside any group. */
  group: string | null;
  /** The OpenAPI file its place in the navigation inherits, for `openapi:` front matter naming none. */
  openapiSpec?: string;
}

/** Where the navigation places generated API reference pages (src/ingest/openapi/). */
interface OpenApiPlacement {
  /** The OpenAPI file, relative to the root. */
  spec: string;
  /** Where generated pages go (`openapi.directory`); null: `api-reference`. */
  directory: string | null;
  configFile: string;
  version: string | null;
  language: string | null;
  hidden: boolean;
  order: number;
  group: string | null;
}

/** One `"POST /users"` (or `"spec.yaml GET /users/{id}"`) entry. */
export interface NavOperation extends OpenApiPlacement {
  raw: string;
  method: string;
  path: string;
  /**
   * For an entry naming no file under an `openapi` list: the list's other files, searched in order when
   * `spec` (its first) lacks the operation.
   */
  alternatives?: { spec: string; directory: string | null }[];
}

export interface NavOpenApi {
  operations: NavOperation[];
  /** Elements with an `openapi` file whose operations no entry picks: every operation gets a page. */
  sections: OpenApiPlacement[];
  /** Every OpenAPI file the config names, in order. */
  specs: string[];
}

export interface Navigation {
  summary: NavigationSummary;
  /** In navigation order (first appearance). */
  pages: NavPage[];
  /** 1-based line of `raw` in config `file`, for warnings about entries. */
  lineOf(file: string, raw: string): number | undefined;
  /** `seo.indexing: "all"`: hidden pages and hidden navigation are indexed too. */
  indexHidden: boolean;
  /** API reference pages to generate from OpenAPI files (Mintlify configs only). */
  openapi?: NavOpenApi;
  /** How the framework makes heading ids, when its config decides it (MkDocs' `attr_list`). */
  anchors?: AnchorStyle;
  /** The folder (relative to the docs root) the framework reads pages from: VitePress' `srcDir`. */
  sourceRoot?: string;
}

/** Keys whose values hold further navigation; walked in the order the config writes them. */
const CHILD_KEYS = new Set([
  'navigation',
  'pages',
  'groups',
  'tabs',
  'anchors',
  'dropdowns',
  'products',
  'versions',
  'languages',
  'menu',
  'items',
  'global',
]);

const EXTERNAL = /^([a-z][a-z0-9+.-]*:|\/\/|#)/i;
const MAX_DEPTH = 64;
/** Files one `openapi` setting may list. */
const MAX_OPENAPI_SETTINGS = 50;

/**
 * An id already in normal form, the rules below would leave it as it is: segments of letters, digits,
 * `_`, `-` and dots (`v1.15.17/en/quickstart`), none starting with a dot, and no `.md`/`.mdx` to strip.
 */
const PLAIN_PAGE_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;
const PAGE_EXTENSION = /\.mdx?$/i;

/** `/guides/setup.mdx` → `guides/setup`; null for an empty entry. */
export const normalizePageId = (raw: string): string | null =>
  // Most entries of a large config are plain; each rule is a regular expression run.
  PLAIN_PAGE_ID.test(raw) && !PAGE_EXTENSION.test(raw) ? raw : normalizeWrittenPageId(raw);

/** `normalizePageId` without its shortcut (exported for the test that holds the two equal). */
export const normalizeWrittenPageId = (raw: string): string | null => {
  let id = raw.trim().replace(/\\/g, '/');
  id = id.replace(/[?#].*$/, '');
  while (id.startsWith('./')) id = id.slice(2);
  id = id.replace(/^\/+/, '').replace(/\/+$/, '');
  id = id.replace(/\.(mdx|md)$/i, '');
  id = id.replace(/\/{2,}/g, '/');
  return id === '' ? null : id;
};

interface WalkContext {
  file: string;
  version: string | null;
  language: string | null;
  hidden: boolean;
  /** The nearest enclosing group's name. */
  group: string | null;
  /** Config files on the current `$ref` chain, to stop cycles. */
  refChain: string[];
  depth: number;
  /** The nearest `openapi` setting: operation entries without a file use its first spec. */
  openapi: {
    spec: string;
    directory: string | null;
    section: Section;
    /** The setting's other files, when it lists several. */
    others: { spec: string; directory: string | null }[];
  } | null;
}

/** An element with an `openapi` setting; its operations all get pages unless an entry picks some. */
interface Section {
  placements: OpenApiPlacement[];
  picked: boolean;
}

interface MutablePage {
  id: string;
  raw: string;
  configFile: string;
  /** Lists, not sets: a page has one or a few, and a large config has tens of thousands of pages. */
  versions: string[];
  languages: string[];
  hidden: boolean;
  order: number;
  group: string | null;
  openapiSpec: string | null;
}

type ConfigKind = 'docs.json' | 'mint.json';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A `docs.json` or `mint.json` that is there but cannot be used (not JSON, not an object, or refused:
 * too large, linked out of the folder): the ingestion fails with this message and the site keeps what
 * it had. Read as plain Markdown instead, the folder would lose its navigation and publish every page
 * the navigation leaves out (drafts, internal notes), which Mintlify treats as hidden.
 */
export class DocsConfigError extends Error {
  override name = 'DocsConfigError';
}

/** A config file's JSON, or where and why it is not JSON. */
function parseJson(
  source: string,
): { ok: true; value: unknown } | { ok: false; line: number; column: number; reason: string } {
  try {
    return { ok: true, value: JSON.parse(source.replace(/^\uFEFF/, '')) };
  } catch (error) {
    const { line, column } = positionAt(source, jsonErrorOffset(source, error));
    return { ok: false, line, column, reason: error instanceof Error ? error.message : String(error) };
  }
}

const unusable = (file: string, why: string): DocsConfigError =>
  new DocsConfigError(`${file} ${why}; fix it and ingest again (nothing was indexed or changed)`);

/**
 * Reads `docs.json` (or legacy `mint.json`) and flattens its navigation into pages with labels. Returns
 * null when there is no config; throws `DocsConfigError` when there is one it cannot use.
 */
export const readNavigation = async (root: string, warnings: WarningSink): Promise<Navigation | null> => {
  const texts = new Map<string, string>();
  const folder = containedFolder(root);
  const refusedConfigs = new Set<string>();
  const readConfigText = async (rel: string): Promise<string | null> => {
    const cached = texts.get(rel);
    if (cached !== undefined) return cached;
    const read = await folder.readText(rel, MAX_CONFIG_FILE_BYTES);
    if (!read.ok) {
      // An absent docs.json is no news; a refused one is, named by its place in the folder only.
      if (!read.missing && !refusedConfigs.has(rel)) {
        refusedConfigs.add(rel);
        warnings.add({ file: rel, message: `cannot read config file (${read.reason}); ignored` }, 'io');
      }
      return null;
    }
    texts.set(rel, read.text);
    return read.text;
  };

  let kind: ConfigKind | null = null;
  let text: string | null = null;
  for (const candidate of ['docs.json', 'mint.json'] as const) {
    const read = await folder.readText(candidate, MAX_CONFIG_FILE_BYTES);
    if (read.ok) {
      texts.set(candidate, read.text);
      kind = candidate;
      text = read.text;
      break;
    }
    if (!read.missing) throw unusable(candidate, `cannot be read (${read.reason})`);
    // A link to a file that is not there (a generated config left out of the repository) is a config
    // that cannot be read, not a folder without one.
    if (await folder.isDanglingLink(candidate))
      throw unusable(candidate, 'cannot be read (a symbolic link to nothing)');
  }
  if (kind === null || text === null) return null;

  // The config that is not JSON fails the ingestion; a `$ref` file that is not is a warning.
  const parsed = parseJson(text);
  if (!parsed.ok)
    throw unusable(
      kind,
      `is not valid JSON at line ${parsed.line}, column ${parsed.column} (${parsed.reason})`,
    );
  const config = parsed.value;
  if (!isRecord(config)) throw unusable(kind, 'is not a JSON object');

  const pages = new Map<string, MutablePage>();
  const versions: string[] = [];
  const languages: string[] = [];
  const declare = (list: string[], label: string): void => {
    if (!list.includes(label)) list.push(label);
  };

  const withLine = (file: string, raw: string | undefined, message: string): Warning => {
    const line = raw === undefined ? undefined : lineOfJsonString(texts.get(file) ?? '', raw);
    return line === undefined ? { file, message } : { file, line, message };
  };
  const warnEntry = (ctx: WalkContext, message: string, raw?: string): void => {
    warnings.add(() => withLine(ctx.file, raw, message), 'navigation', 'more navigation problems');
  };

  // Counts every placement, so a page's order is where it is placed, however often others repeat.
  let placements = 0;
  const addPage = (raw: string, ctx: WalkContext): void => {
    const trimmed = raw.trim();
    if (EXTERNAL.test(trimmed)) return;
    const operation = parseOperationRef(trimmed);
    if (operation) {
      addOperation(raw, operation, ctx);
      return;
    }
    const id = normalizePageId(trimmed);
    if (id === null) {
      warnEntry(ctx, 'empty navigation page entry', raw);
      return;
    }
    const order = placements++;
    let page = pages.get(id);
    if (!page) {
      page = {
        id,
        raw,
        configFile: ctx.file,
        versions: [],
        languages: [],
        hidden: ctx.hidden,
        order,
        group: ctx.group,
        openapiSpec: ctx.openapi?.spec ?? null,
      };
      pages.set(id, page);
    } else if (!ctx.hidden && page.hidden) {
      // Readers see the page where it is visible, so that place decides its order and group.
      page.hidden = false;
      page.order = order;
      page.group = ctx.group;
    }
    if (ctx.version !== null) declare(page.versions, ctx.version);
    if (ctx.language !== null) declare(page.languages, ctx.language);
  };

  const operations: NavOperation[] = [];
  const sections: Section[] = [];
  const specs: string[] = [];
  const placementOf = (spec: string, directory: string | null, ctx: WalkContext): OpenApiPlacement => ({
    spec,
    directory,
    configFile: ctx.file,
    version: ctx.version,
    language: ctx.language,
    hidden: ctx.hidden,
    order: placements++,
    group: ctx.group,
  });

  const addOperation = (
    raw: string,
    operation: { spec: string | null; method: string; path: string },
    ctx: WalkContext,
  ): void => {
    let spec: string | null;
    let directory: string | null = null;
    let alternatives: { spec: string; directory: string | null }[] = [];
    if (operation.spec !== null) {
      spec = specFile(operation.spec, ctx, raw);
      if (spec === null) return;
      declare(specs, spec);
    } else if (ctx.openapi) {
      spec = ctx.openapi.spec;
      directory = ctx.openapi.directory;
      alternatives = ctx.openapi.others;
      // Picking operations from the inherited spec means the element lists its own: no bulk pages.
      ctx.openapi.section.picked = true;
    } else {
      warnEntry(
        ctx,
        `navigation entry "${raw.trim()}" names an OpenAPI operation, but no "openapi" file is set here`,
        raw,
      );
      return;
    }
    operations.push({
      ...placementOf(spec, directory ?? ctx.openapi?.directory ?? null, ctx),
      raw,
      method: operation.method,
      path: operation.path,
      ...(alternatives.length > 0 ? { alternatives } : {}),
    });
  };

  /** URLs of OpenAPI files, with the local file their path names (noteUrlFile), or null: remote. */
  const urlFiles: { written: string; file: string | null }[] = [];
  const specFile = (written: string, ctx: WalkContext, raw: string): string | null => {
    const url = urlFiles.find((u) => u.written === written);
    const resolved = url
      ? url.file
        ? { file: url.file }
        : { file: null, reason: 'is a remote URL; remote specs are not fetched during ingestion' }
      : specFileOf(written, () => false);
    if (resolved.file === null) {
      warnings.add(
        () =>
          withLine(
            ctx.file,
            raw,
            `OpenAPI file "${written}" ${resolved.reason}; its operations are not indexed`,
          ),
        'openapi',
        'more OpenAPI files not indexed',
      );
      return null;
    }
    return resolved.file;
  };

  /** Mintlify's `openapi` values: a file, a list of files, or `{ source, directory }`. */
  const readOpenApiSetting = async (value: unknown, ctx: WalkContext): Promise<WalkContext['openapi']> => {
    const entries = Array.isArray(value) ? value : [value];
    const section: Section = { placements: [], picked: false };
    let first: { spec: string; directory: string | null } | null = null;
    const others: { spec: string; directory: string | null }[] = [];
    for (const entry of entries.slice(0, MAX_OPENAPI_SETTINGS)) {
      const source =
        typeof entry === 'string'
          ? entry
          : isRecord(entry) && typeof entry.source === 'string'
            ? entry.source
            : null;
      const directory =
        isRecord(entry) && typeof entry.directory === 'string'
          ? (normalizePageId(entry.directory) ?? null)
          : null;
      if (source === null) {
        warnEntry(ctx, 'an "openapi" setting is neither a file nor { "source": … }; ignored');
        continue;
      }
      await noteUrlFile(source);
      const spec = specFile(source, ctx, source);
      if (spec === null) continue;
      declare(specs, spec);
      if (first === null) first = { spec, directory };
      else others.push({ spec, directory });
      section.placements.push(placementOf(spec, directory, ctx));
    }
    if (first === null) return ctx.openapi;
    sections.push(section);
    return { ...first, section, others };
  };

  /** A URL counts as a local file when its path names a file of the folder (checked once, here). */
  const noteUrlFile = async (written: string): Promise<void> => {
    if (!/^https?:/i.test(written) || urlFiles.some((u) => u.written === written)) return;
    const candidate = specFileOf(written, () => true);
    let file: string | null = null;
    if (candidate.file !== null) {
      const found = await stat(path.join(root, candidate.file)).catch(() => null);
      if (found?.isFile()) file = candidate.file;
    }
    urlFiles.push({ written, file });
  };

  const resolveRef = async (
    ref: string,
    ctx: WalkContext,
  ): Promise<{ value: unknown; file: string } | null> => {
    const target = path.posix.normalize(
      path.posix.join(path.posix.dirname(ctx.file), ref.replace(/\\/g, '/')),
    );
    if (target.startsWith('../') || path.posix.isAbsolute(target)) {
      warnEntry(ctx, `$ref "${ref}" points outside the docs folder; ignored`, ref);
      return null;
    }
    if (ctx.refChain.includes(target)) {
      warnEntry(ctx, `$ref cycle: ${[...ctx.refChain, target].join(' → ')}; ignored`, ref);
      return null;
    }
    const source = await readConfigText(target);
    if (source === null) {
      // A refused file has had its warning, with the reason.
      if (!refusedConfigs.has(target)) warnEntry(ctx, `$ref file "${ref}" not found`, ref);
      return null;
    }
    const result = parseJson(source);
    if (result.ok) return { value: result.value, file: target };
    warnings.add({
      file: target,
      line: result.line,
      message: `invalid JSON at line ${result.line}, column ${result.column}: ${result.reason}`,
    });
    return null;
  };

  /**
   * Walks a navigation node; answers a promise only when the node (or one below it) reads a file (a
   * `$ref`, an OpenAPI setting). A large config is tens of thousands of plain entries, and awaiting each
   * of them made the walk of a 2 MB docs.json take longer than reading it.
   */
  const walk = (node: unknown, ctx: WalkContext, parentKey: string): Promise<void> | undefined => {
    if (ctx.depth > MAX_DEPTH) {
      warnEntry(ctx, `navigation nested deeper than ${MAX_DEPTH} levels; rest ignored`);
      return;
    }
    if (Array.isArray(node)) return walkEach(node, 0, { ...ctx, depth: ctx.depth + 1 }, () => parentKey);
    if (typeof node === 'string') {
      if (parentKey === 'pages' || parentKey === 'root') addPage(node, ctx);
      // Legacy shapes list bare labels: `"versions": ["v1", "v2"]`.
      else if (parentKey === 'versions') declare(versions, node);
      else if (parentKey === 'languages') declare(languages, node);
      else warnEntry(ctx, `unexpected string "${node}" under "${parentKey}"; ignored`, node);
      return;
    }
    if (!isRecord(node)) {
      const type = node === null ? 'null' : typeof node;
      warnEntry(ctx, `unexpected ${type} navigation entry under "${parentKey}"; ignored`);
      return;
    }
    if (typeof node.$ref === 'string') return walkRef(node, node.$ref, ctx, parentKey);

    const next: WalkContext = { ...ctx, depth: ctx.depth + 1 };
    if (typeof node.version === 'string') {
      next.version = node.version;
      declare(versions, node.version);
    }
    if (typeof node.language === 'string') {
      next.language = node.language;
      declare(languages, node.language);
    }
    if (typeof node.group === 'string' && node.group.trim() !== '') next.group = node.group.trim();
    if (node.openapi === undefined) return walkRecord(node, next);
    return readOpenApiSetting(node.openapi, next).then((openapi) => {
      next.openapi = openapi;
      return walkRecord(node, next);
    });
  };

  /** The rest of a record, its labels in `next`: visibility, its root page, then its child lists. */
  const walkRecord = (node: Record<string, unknown>, next: WalkContext): Promise<void> | undefined => {
    // Mintlify keeps hidden tabs/groups out of search unless they opt back in with `searchable: true`.
    if (node.searchable === true) next.hidden = false;
    else if (node.hidden === true || node.searchable === false) next.hidden = true;
    if (typeof node.root === 'string') addPage(node.root, next);
    const children = Object.entries(node).filter(([key]) => CHILD_KEYS.has(key));
    return walkEach(
      children.map(([, value]) => value),
      0,
      next,
      (i) => children[i]?.[0] ?? '',
    );
  };

  /** `items[from…]` in order, synchronously until one of them has to wait for a file. */
  const walkEach = (
    items: readonly unknown[],
    from: number,
    ctx: WalkContext,
    keyOf: (i: number) => string,
  ): Promise<void> | undefined => {
    for (let i = from; i < items.length; i++) {
      const pending = walk(items[i], ctx, keyOf(i));
      if (pending) return pending.then(() => walkEach(items, i + 1, ctx, keyOf));
    }
    return;
  };

  const walkRef = async (
    node: Record<string, unknown>,
    ref: string,
    ctx: WalkContext,
    parentKey: string,
  ): Promise<void> => {
    const resolved = await resolveRef(ref, ctx);
    if (!resolved) return;
    const { $ref: _ignored, ...siblings } = node;
    const merged = isRecord(resolved.value) ? { ...resolved.value, ...siblings } : resolved.value;
    await walk(
      merged,
      { ...ctx, file: resolved.file, refChain: [...ctx.refChain, resolved.file], depth: ctx.depth + 1 },
      parentKey,
    );
  };

  const rootCtx: WalkContext = {
    file: kind,
    version: null,
    language: null,
    hidden: false,
    group: null,
    refChain: [kind],
    depth: 0,
    openapi: null,
  };
  if (kind === 'mint.json') {
    // Legacy configs declare version labels at the top; groups then pick one with `"version": "v1"`.
    const declared = config.versions;
    if (Array.isArray(declared)) {
      for (const v of declared) {
        if (typeof v === 'string') declare(versions, v);
        else if (isRecord(v) && typeof v.name === 'string') declare(versions, v.name);
      }
    }
    // The legacy top-level `openapi` names the files that `openapi:` front matter refers to.
    for (const entry of Array.isArray(config.openapi) ? config.openapi : [config.openapi]) {
      if (typeof entry !== 'string') continue;
      await noteUrlFile(entry);
      const spec = specFile(entry, rootCtx, entry);
      if (spec !== null) declare(specs, spec);
    }
    // mint.json tabs and anchors only group pages by URL prefix; the pages themselves sit in `navigation`.
    if (Array.isArray(config.navigation)) await walk(config.navigation, rootCtx, 'navigation');
    else warnEntry(rootCtx, 'mint.json has no "navigation" array');
  } else if (config.navigation !== undefined) {
    await walk(config.navigation, rootCtx, 'navigation');
  } else {
    warnEntry(rootCtx, 'docs.json has no "navigation"');
  }

  return {
    summary: { kind, versions, languages, name: typeof config.name === 'string' ? config.name : null },
    pages: [...pages.values()].map((p) => ({
      id: p.id,
      raw: p.raw,
      configFile: p.configFile,
      versions: p.versions,
      languages: p.languages,
      hidden: p.hidden,
      order: p.order,
      group: p.group,
      ...(p.openapiSpec === null ? {} : { openapiSpec: p.openapiSpec }),
    })),
    lineOf: (file, raw) => lineOfJsonString(texts.get(file) ?? '', raw),
    indexHidden: isRecord(config.seo) && config.seo.indexing === 'all',
    openapi: {
      operations,
      sections: sections.filter((section) => !section.picked).flatMap((section) => section.placements),
      specs,
    },
  };
};
