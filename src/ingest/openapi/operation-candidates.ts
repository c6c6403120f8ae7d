import { type ContainedFolder, MAX_PAGE_FILE_BYTES } from '../contained-file.ts';
import { frontMatterBlock } from '../front-matter.ts';
import type { PageCandidate } from '../load-page.ts';
import type { NavOpenApi } from '../navigation.ts';
import type { Warning } from '../types.ts';
import { parseOperationRef } from './operation-ref.ts';
import { findOperation, type OperationInfo, operationPageId } from './operations.ts';
import type { SpecListing } from './spec-cache.ts';

export interface OperationCandidates {
  candidates: PageCandidate[];
  /** Operations left out on purpose (`x-hidden`, or placed only in hidden navigation). */
  skipped: number;
  warnings: Warning[];
}

interface Merged {
  candidate: PageCandidate;
  versions: Set<string>;
  languages: Set<string>;
  visible: boolean;
}

/**
 * Turns the navigation's OpenAPI entries and sections into page candidates: each operation once (its
 * labels merged over every place it appears), named as the hosted docs name it, in navigation order
 * (a section's operations in document order at the section's place: fractional orders, renumbered by
 * the caller). A generated page never replaces a Markdown page of the same path.
 */
export const operationCandidates = async (
  openapi: NavOpenApi,
  list: (file: string) => Promise<SpecListing>,
  pageIds: ReadonlySet<string>,
  indexHidden: boolean,
  lineOf: (file: string, raw: string) => number | undefined,
  shownByPages: ReadonlySet<string> = new Set(),
): Promise<OperationCandidates> => {
  const warnings: Warning[] = [];
  const files = [
    ...new Set([
      ...[...openapi.operations, ...openapi.sections].map((p) => p.spec),
      ...openapi.operations.flatMap((entry) => (entry.alternatives ?? []).map((a) => a.spec)),
    ]),
  ];
  const listings = new Map<string, OperationInfo[]>();
  await Promise.all(
    files.map(async (file) => {
      const listing = await list(file);
      warnings.push(...listing.warnings);
      if (listing.ok) listings.set(file, listing.operations);
    }),
  );

  // Only generated pages number themselves apart (`-1`); a Markdown page at the path is kept below.
  const taken = new Set<string>();
  const ids = new Map<string, string>();
  const merged = new Map<string, Merged>();
  let skipped = 0;
  const place = (
    spec: string,
    operation: OperationInfo,
    placement: NavOpenApi['sections'][number],
    order: number,
    group: string | null,
  ): void => {
    const key = `${spec}\0${operation.method}\0${operation.path}`;
    let entry = merged.get(key);
    if (!entry) {
      let id = ids.get(key);
      if (id === undefined) {
        id = operationPageId(operation, placement.directory, taken);
        ids.set(key, id);
      }
      if (pageIds.has(id)) {
        warnings.push({
          file: spec,
          message: `${operation.method.toUpperCase()} ${operation.path} would be page "${id}", which a Markdown page already is; the Markdown page is kept`,
        });
        return;
      }
      taken.add(id);
      entry = {
        candidate: {
          id,
          file: spec,
          versions: [],
          languages: [],
          navOrder: order,
          navGroup: group,
          operation: { method: operation.method, path: operation.path },
        },
        versions: new Set(),
        languages: new Set(),
        visible: false,
      };
      merged.set(key, entry);
    }
    const hidden = operation.hidden || placement.hidden;
    if (!hidden && !entry.visible) {
      entry.visible = true;
      entry.candidate.navOrder = order;
      entry.candidate.navGroup = group;
    }
    if (placement.version !== null) entry.versions.add(placement.version);
    if (placement.language !== null) entry.languages.add(placement.language);
  };

  for (const entry of openapi.operations) {
    if (!listings.has(entry.spec)) continue;
    // The entry's file first, then the other files of the same `openapi` list, in order.
    let spec = entry.spec;
    let directory = entry.directory;
    let operation = findOperation(listings.get(spec) ?? [], entry.method, entry.path);
    for (const other of entry.alternatives ?? []) {
      if (operation) break;
      operation = findOperation(listings.get(other.spec) ?? [], entry.method, entry.path);
      if (operation) ({ spec, directory } = other);
    }
    if (!operation) {
      const line = lineOf(entry.configFile, entry.raw);
      const searched = [entry.spec, ...(entry.alternatives ?? []).map((a) => a.spec)].join(', ');
      const message = `navigation entry "${entry.raw.trim()}": ${searched} ${entry.alternatives?.length ? 'have' : 'has'} no such operation; not indexed`;
      warnings.push(
        line === undefined ? { file: entry.configFile, message } : { file: entry.configFile, line, message },
      );
      continue;
    }
    place(spec, operation, { ...entry, spec, directory }, entry.order, entry.group);
  }
  for (const section of openapi.sections) {
    const operations = listings.get(section.spec) ?? [];
    for (const [index, operation] of operations.entries()) {
      // An MDX page shows it already (`openapi:` front matter): one operation, one page.
      if (shownByPages.has(operationKey(operation.method, operation.path))) continue;
      const order = section.order + (index + 1) / (operations.length + 1);
      place(section.spec, operation, section, order, operation.tagLabel ?? section.group);
    }
  }

  const candidates: PageCandidate[] = [];
  for (const entry of merged.values()) {
    if (!entry.visible && !indexHidden) {
      skipped++;
      continue;
    }
    candidates.push({ ...entry.candidate, versions: [...entry.versions], languages: [...entry.languages] });
  }
  return { candidates, skipped, warnings };
};

/** An operation as its pages are matched: method and path, a trailing slash aside. */
const operationKey = (method: string, path: string): string =>
  `${method.toLowerCase()} ${path.length > 1 ? path.replace(/\/+$/, '') : path}`;

const OPENAPI_LINE = /^openapi:[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\n#]*?))[ \t]*(?:#.*)?$/m;

/**
 * The operations the navigation's pages show through `openapi:` front matter (`openapi: GET /pets`),
 * read from the pages an element with an `openapi` setting lists (the only ones that can repeat one of
 * its generated pages), so that a section does not generate a second page for any of them.
 */
export const operationsShownByPages = async (
  folder: ContainedFolder,
  candidates: readonly PageCandidate[],
): Promise<Set<string>> => {
  const shown = new Set<string>();
  for (const candidate of candidates) {
    if (candidate.openapiSpec === undefined || candidate.operation !== undefined) continue;
    const read = await folder.readText(candidate.file, MAX_PAGE_FILE_BYTES);
    const block = read.ok ? frontMatterBlock(read.text) : null;
    const match = block === null ? null : OPENAPI_LINE.exec(block);
    const ref = match ? parseOperationRef(match[1] ?? match[2] ?? match[3] ?? '') : null;
    if (ref) shown.add(operationKey(ref.method, ref.path));
  }
  return shown;
};
