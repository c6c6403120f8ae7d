import path from 'node:path';
import { isObject, type JsonObject } from './openapi-spec.ts';
import { OPERATION_METHODS } from './operation-ref.ts';

/** What the navigation needs of one operation to place and name its page; small and serializable. */
export interface OperationInfo {
  method: string;
  /** Path template, or the webhook's name when `method` is `webhook`. */
  path: string;
  summary: string | null;
  /** The operation's first tag (its group in the API reference). */
  tag: string | null;
  /** The tag's display name (`x-group`), else the tag. */
  tagLabel: string | null;
  /** `x-mint.href`: the page URL the spec asks for. */
  href: string | null;
  /** `x-hidden`: generated but kept out of navigation and search, like a hidden page. */
  hidden: boolean;
}

/** Operations one spec may contribute; the rest are left out with a warning. */
export const MAX_OPERATIONS_PER_SPEC = 5_000;

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

const xMint = (operation: JsonObject): JsonObject =>
  isObject(operation['x-mint']) ? operation['x-mint'] : {};

/** `$ref` hops followed to reach a path item or an operation (`#/components/pathItems/…`). */
const MAX_REF_HOPS = 8;

/** One token of a `#/…` pointer, URI-decoded then unescaped (RFC 6901); null when its `%` escape is malformed. */
const pointerToken = (raw: string): string | null => {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return null;
  }
  return decoded.replaceAll('~1', '/').replaceAll('~0', '~');
};

/**
 * `value`, or what its `$ref` inside the document points at (OpenAPI 3.1 shares path items and
 * webhooks through `components/pathItems`): only `#/…` pointers, never another file.
 */
const inDocument = (doc: JsonObject, value: unknown): JsonObject | null => {
  let node = value;
  for (let hop = 0; isObject(node) && typeof node.$ref === 'string' && hop < MAX_REF_HOPS; hop++) {
    const ref = node.$ref;
    if (!ref.startsWith('#/')) return null;
    let target: unknown = doc;
    for (const raw of ref.slice(2).split('/')) {
      const key = pointerToken(raw);
      // A malformed escape (`%zz`) names nothing: the entry is skipped like any broken reference.
      if (key === null) return null;
      target = isObject(target) && Object.hasOwn(target, key) ? target[key] : undefined;
    }
    node = target;
  }
  return isObject(node) && typeof node.$ref !== 'string' ? node : null;
};

/** Every operation and webhook of a parsed document, in document order, minus `x-excluded` ones. */
export const listOperations = (doc: JsonObject): OperationInfo[] => {
  const labels = new Map<string, string>();
  if (Array.isArray(doc.tags)) {
    for (const tag of doc.tags) {
      if (isObject(tag) && typeof tag.name === 'string')
        labels.set(tag.name, text(tag['x-group']) ?? tag.name);
    }
  }
  const out: OperationInfo[] = [];
  const collect = (items: unknown, webhook: boolean): void => {
    if (!isObject(items)) return;
    for (const [key, written] of Object.entries(items)) {
      const item = inDocument(doc, written);
      if (item === null) continue;
      for (const method of OPERATION_METHODS) {
        const operation = inDocument(doc, item[method]);
        if (operation === null || operation['x-excluded'] === true) continue;
        const tags = Array.isArray(operation.tags) ? operation.tags.filter((t) => typeof t === 'string') : [];
        const tag = tags[0] ?? null;
        out.push({
          method: webhook ? 'webhook' : method,
          path: key,
          summary: text(operation.summary),
          tag,
          tagLabel: tag === null ? null : (labels.get(tag) ?? tag),
          href: text(xMint(operation).href),
          hidden: operation['x-hidden'] === true,
        });
        // A webhook is one page whatever methods it lists.
        if (webhook) break;
      }
    }
  };
  collect(doc.paths, false);
  collect(doc.webhooks, true);
  return out;
};

/** Mintlify's file-name rule for generated pages (spaces to dashes, path parameters and punctuation out). */
const slugPart = (value: string | null): string | null =>
  value
    ? value
        .replaceAll(' ', '-')
        .replace(/\{.*?\}/g, '-')
        .replace(/^-/, '')
        .replace(/-$/, '')
        .replace(/[{}(),.'\n/]/g, '')
        .replaceAll('--', '-')
        .toLowerCase()
    : null;

const joinPath = (...parts: string[]): string =>
  parts
    .join('/')
    .replace(/\/+/g, '/')
    .replace(/^\/|\/$/g, '');

/**
 * Longest id of a generated page. Its tag, summary, path or `x-mint.href` can be any length: a 100,000
 * character tag made a page id the page view and the MCP tool refuse (paths up to 1,000 characters),
 * linked from llms.txt all the same. Room is left for a `-N` suffix and `.md`.
 */
export const MAX_OPERATION_PAGE_ID_CHARS = 500;
/** Longest tag or name part of a generated id, so that a long tag still leaves the name its place. */
const MAX_ID_PART_CHARS = 150;

/** `value` cut to `max` UTF-16 units, never inside a character. */
const clipId = (value: string, max: number): string => {
  if (value.length <= max) return value;
  const cut = value.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
};

/**
 * The site path an `x-mint.href` names: a URL's path, dot segments resolved. Taken as written,
 * `../../x` or `https://evil.example/x` became page ids that llms.txt and citations turned into links
 * leading out of the site's pages.
 */
const hrefPath = (href: string): string => {
  let written = href.replace(/\\/g, '/');
  if (/^[a-z][a-z0-9+.-]*:/i.test(written)) {
    try {
      written = decodeURIComponent(new URL(written).pathname);
    } catch {
      return '';
    }
  }
  // A `..` above the root is dropped, as a browser drops it.
  return path.posix.normalize(`/${written.replace(/[?#].*$/, '')}`);
};

/**
 * The page id (URL path) the hosted docs give a generated operation page: `x-mint.href` when set, else
 * `<directory>/<tag>/<summary>` (directory `api-reference` unless the navigation names one), with a
 * numeric suffix when two operations of one spec would share it. `taken` holds the ids already given.
 */
export const operationPageId = (
  operation: OperationInfo,
  directory: string | null,
  taken: ReadonlySet<string>,
): string => {
  let base: string;
  if (operation.href !== null) {
    base = joinPath(hrefPath(operation.href));
  } else {
    const name =
      slugPart(operation.summary) ||
      (operation.method === 'webhook'
        ? slugPart(operation.path)
        : `${operation.method}-${slugPart(operation.path) ?? ''}`);
    base = joinPath(
      directory ?? 'api-reference',
      clipId(slugPart(operation.tag) ?? '', MAX_ID_PART_CHARS),
      clipId(name ?? 'operation', MAX_ID_PART_CHARS),
    );
  }
  base = clipId(base.toLowerCase(), MAX_OPERATION_PAGE_ID_CHARS).replace(/[-/]+$/, '');
  if (base === '') base = `${operation.method}-operation`;
  if (!taken.has(base)) return base;
  for (let n = 1; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
};

/** Finds an operation by method and path, as Mintlify matches them (a trailing slash does not matter). */
export const findOperation = (
  operations: readonly OperationInfo[],
  method: string,
  path: string,
): OperationInfo | undefined => {
  const trim = (p: string): string => (p.length > 1 ? p.replace(/\/+$/, '') : p);
  return operations.find((op) => op.method === method && trim(op.path) === trim(path));
};
