import { createHash } from 'node:crypto';
import type { ContainedFolder } from '../contained-file.ts';
import type { Warning } from '../types.ts';
import { dereferenceSpec, type OpenApiSpec, parseSpecText, readSpecText } from './openapi-spec.ts';
import { listOperations, MAX_OPERATIONS_PER_SPEC, type OperationInfo } from './operations.ts';

/** `tooLarge`: the file is over the cache's `maxBytes`; list it where larger files may be parsed. */
export type SpecListing =
  | { ok: true; operations: OperationInfo[]; warnings: Warning[] }
  | { ok: false; warnings: Warning[]; tooLarge?: true };

/**
 * One ingestion's OpenAPI documents inside one page worker: each file is read, parsed and dereferenced
 * once however many operation pages it makes. Broken-reference warnings are handed out with the first
 * page that needs the document, and are merged (deduplicated) with the listing's by the loader.
 */
export interface SpecCache {
  /** Sha-256 of the file's text, or null when it cannot be read: what an operation page's hash covers. */
  digest(file: string): Promise<{ digest: string } | { digest: null; warnings: Warning[]; tooLarge?: true }>;
  /** The operations the file declares, for the navigation to name their pages (no references resolved). */
  list(file: string): Promise<SpecListing>;
  /** The dereferenced document. */
  spec(file: string): Promise<{ spec: OpenApiSpec | null; warnings: Warning[] }>;
}

export const createSpecCache = (folder: ContainedFolder, maxBytes?: number): SpecCache => {
  const texts = new Map<string, ReturnType<typeof readSpecText>>();
  const specs = new Map<string, Promise<{ spec: OpenApiSpec | null; warnings: Warning[] }>>();
  const listings = new Map<string, Promise<SpecListing>>();
  const digests = new Map<string, ReturnType<SpecCache['digest']>>();
  const read = (file: string): ReturnType<typeof readSpecText> => {
    let text = texts.get(file);
    if (!text) {
      text = readSpecText(folder, file, maxBytes);
      texts.set(file, text);
    }
    return text;
  };
  const listSpec = async (file: string): Promise<SpecListing> => {
    const text = await read(file);
    if (!text.ok) return text;
    const parsed = parseSpecText(file, text.text);
    if (!parsed.ok) return parsed;
    let operations: OperationInfo[];
    try {
      operations = listOperations(parsed.doc);
    } catch (error) {
      // Listing runs on the main thread for small files: a document it trips on must cost its own
      // pages, not the whole ingestion.
      return {
        ok: false,
        warnings: [{ file, message: `cannot list operations (${(error as Error).name}); none are indexed` }],
      };
    }
    const warnings: Warning[] = [];
    if (operations.length === 0)
      warnings.push({
        file,
        message: 'declares no operations (no "paths" or "webhooks" with one); no page is made from it',
      });
    if (operations.length > MAX_OPERATIONS_PER_SPEC) {
      warnings.push({
        file,
        message: `declares ${operations.length} operations; only the first ${MAX_OPERATIONS_PER_SPEC} are indexed (MAX_OPERATIONS_PER_SPEC)`,
      });
    }
    return { ok: true, operations: operations.slice(0, MAX_OPERATIONS_PER_SPEC), warnings };
  };
  return {
    digest(file) {
      // Once per file: a spec of thousands of operations is asked for its digest by each of their pages.
      let digest = digests.get(file);
      if (!digest) {
        digest = read(file).then((text) =>
          text.ok
            ? { digest: createHash('sha256').update(text.text).digest('hex') }
            : {
                digest: null,
                warnings: text.warnings,
                ...(text.tooLarge ? { tooLarge: true as const } : {}),
              },
        );
        digests.set(file, digest);
      }
      return digest;
    },
    list(file) {
      let listing = listings.get(file);
      if (!listing) {
        listing = listSpec(file);
        listings.set(file, listing);
      }
      return listing;
    },
    spec(file) {
      let spec = specs.get(file);
      if (!spec) {
        spec = (async () => {
          const text = await read(file);
          if (!text.ok) return { spec: null, warnings: text.warnings };
          const parsed = parseSpecText(file, text.text);
          if (!parsed.ok) return { spec: null, warnings: parsed.warnings };
          return dereferenceSpec(file, parsed);
        })();
        specs.set(file, spec);
      }
      return spec;
    },
  };
};
