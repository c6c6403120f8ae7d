import type { Warning } from '../types.ts';
import { type OperationPage, renderOperation } from './operation-markdown.ts';
import { parseOperationRef, specFileOf } from './operation-ref.ts';
import { findOperation } from './operations.ts';
import type { SpecCache } from './spec-cache.ts';

/** An operation a page shows, with what its content hash must cover. */
export interface OperationSource {
  file: string;
  method: string;
  path: string;
  /** Stands in for the spec in the page's content hash: the file's digest and the operation. */
  hashPart: { file: string; source: string };
}

const hashPart = (
  file: string,
  digest: string,
  method: string,
  path: string,
): OperationSource['hashPart'] => ({
  file,
  source: `openapi ${digest} ${method} ${path}`,
});

/** The spec file and digest of an operation page generated from `file` (a navigation entry). */
export const generatedOperationSource = async (
  specs: SpecCache,
  file: string,
  method: string,
  path: string,
): Promise<{ source: OperationSource | null; warnings: Warning[] }> => {
  const read = await specs.digest(file);
  if (read.digest === null) return { source: null, warnings: read.warnings };
  return {
    source: { file, method, path, hashPart: hashPart(file, read.digest, method, path) },
    warnings: [],
  };
};

/**
 * The operation an MDX page's `openapi:` front matter names. `tooLarge`: a file it had to read is over
 * the cache's size limit (a main-thread cache), so the answer is unknown. Without a file it is looked up in the spec
 * the navigation gives the page, then in every spec the config declares, as Mintlify does.
 */
export const frontMatterOperationSource = async (
  specs: SpecCache,
  page: string,
  value: unknown,
  inherited: string | undefined,
  declared: readonly string[],
): Promise<{ source: OperationSource | null; warnings: Warning[]; tooLarge?: true }> => {
  if (typeof value !== 'string' || value.trim() === '') return { source: null, warnings: [] };
  const ref = parseOperationRef(value);
  const warn = (message: string): { source: null; warnings: Warning[] } => ({
    source: null,
    warnings: [{ file: page, message }],
  });
  if (!ref) return warn(`front matter "openapi: ${value.trim()}" is not "[file] METHOD /path"; ignored`);
  let file: string | null = null;
  if (ref.spec !== null) {
    const named = specFileOf(ref.spec, () => true);
    if (named.file === null) return warn(`OpenAPI file "${ref.spec}" ${named.reason}; operation not indexed`);
    file = named.file;
  } else {
    for (const candidate of inherited === undefined ? declared : [inherited, ...declared]) {
      const listing = await specs.list(candidate);
      if (!listing.ok && listing.tooLarge) return { source: null, warnings: [], tooLarge: true };
      if (listing.ok && findOperation(listing.operations, ref.method, ref.path)) {
        file = candidate;
        break;
      }
    }
    if (file === null)
      return warn(
        `no declared OpenAPI file has ${ref.method.toUpperCase()} ${ref.path}; operation not indexed`,
      );
  }
  const read = await specs.digest(file);
  if (read.digest === null)
    // Named on the spec file, so that pages sharing a missing spec make one warning, not one each.
    return { source: null, warnings: read.warnings, ...(read.tooLarge ? { tooLarge: true as const } : {}) };
  return {
    source: {
      file,
      method: ref.method,
      path: ref.path,
      hashPart: hashPart(file, read.digest, ref.method, ref.path),
    },
    warnings: [],
  };
};

/** The warning for an operation its spec lacks: on the page naming it, else on the spec file. */
export const missingOperationWarning = (source: OperationSource, pageFile: string | null): Warning => {
  const name = `${source.method === 'webhook' ? 'webhook' : source.method.toUpperCase()} ${source.path}`;
  return pageFile === null
    ? { file: source.file, message: `no operation ${name} in this OpenAPI file; not indexed` }
    : {
        file: pageFile,
        message: `front matter names ${name}, which ${source.file} does not have; only the page's own text is indexed`,
      };
};

/**
 * Renders the operation; warns when the spec is broken or lacks it: on the page whose front matter
 * names it (`pageFile`), else on the spec file.
 */
export const loadOperation = async (
  specs: SpecCache,
  source: OperationSource,
  pageFile: string | null = null,
): Promise<{ page: OperationPage | null; warnings: Warning[] }> => {
  const { spec, warnings } = await specs.spec(source.file);
  if (!spec) return { page: null, warnings };
  const page = renderOperation(spec, source.method, source.path);
  if (!page) {
    const warning = missingOperationWarning(source, pageFile);
    return { page: null, warnings: [...warnings, warning] };
  }
  return { page, warnings };
};
