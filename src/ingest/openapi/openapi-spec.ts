import { $RefParser } from '@apidevtools/json-schema-ref-parser';
import { parse as parseYaml } from 'yaml';
import { type ContainedFolder, tooLargeReason } from '../contained-file.ts';
import { jsonErrorOffset, positionAt } from '../json-position.ts';
import type { Warning } from '../types.ts';

/**
 * Largest OpenAPI document read: GitHub's REST description, among the largest public ones, is about
 * 11 MB of JSON. Parsing happens in a page worker, under its time and memory budget.
 */
export const MAX_OPENAPI_FILE_BYTES = 16 * 1024 * 1024;
/** YAML aliases expanded in one document: bounds "billion laughs" documents. */
const MAX_YAML_ALIASES = 1_000;
/** Broken `$ref` warnings kept per document; the rest are counted in one line. */
const MAX_REF_WARNINGS = 20;

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface OpenApiSpec {
  file: string;
  /** `2.0`, `3.0.x`, `3.1.x`: decides where bodies and responses live. */
  version: string;
  /** The document with every internal `$ref` replaced by its target; cycles stay as object cycles. */
  doc: JsonObject;
}

/**
 * OpenAPI files up to this size are listed on the main thread (a 512 KB document parses in a few
 * milliseconds), so an unchanged re-ingest needs no worker; larger ones are listed in a page worker.
 */
export const MAX_MAIN_THREAD_SPEC_BYTES = 512 * 1024;

/** `tooLarge`: over the size the caller allowed (`maxBytes`), not necessarily over MAX_OPENAPI_FILE_BYTES. */
export type SpecRead = { ok: true; text: string } | { ok: false; warnings: Warning[]; tooLarge?: true };

export const readSpecText = async (
  folder: ContainedFolder,
  file: string,
  maxBytes = MAX_OPENAPI_FILE_BYTES,
): Promise<SpecRead> => {
  const read = await folder.readText(file, maxBytes);
  if (read.ok) return read;
  if (maxBytes < MAX_OPENAPI_FILE_BYTES && read.reason === tooLargeReason(maxBytes)) {
    return { ok: false, warnings: [], tooLarge: true };
  }
  const message = read.missing
    ? 'OpenAPI file not found; its operations are not indexed'
    : `cannot read OpenAPI file (${read.reason}); its operations are not indexed`;
  return { ok: false, warnings: [{ file, message }] };
};

/** Parses JSON or YAML into the raw document, without resolving references. */
export const parseSpecText = (
  file: string,
  text: string,
): { ok: true; doc: JsonObject; version: string } | { ok: false; warnings: Warning[] } => {
  const fail = (message: string, line?: number): { ok: false; warnings: Warning[] } => ({
    ok: false,
    warnings: [line === undefined ? { file, message } : { file, line, message }],
  });
  const source = text.replace(/^\uFEFF/, '');
  let doc: unknown;
  if (/^\s*[{[]/.test(source)) {
    try {
      doc = JSON.parse(source);
    } catch (error) {
      const { line } = positionAt(source, jsonErrorOffset(source, error));
      return fail(`invalid JSON in OpenAPI file: ${(error as Error).message}`, line);
    }
  } else {
    try {
      // Schema `core` turns no unknown tag into a class instance; anchors are capped against expansion bombs.
      // `merge`: `<<: *defaults` keys, as specs written by hand use them to share a response's parts.
      doc = parseYaml(source, {
        maxAliasCount: MAX_YAML_ALIASES,
        schema: 'core',
        uniqueKeys: false,
        merge: true,
      });
    } catch (error) {
      const line = (error as { linePos?: { line: number }[] }).linePos?.[0]?.line;
      return fail(`invalid YAML in OpenAPI file: ${firstLine((error as Error).message)}`, line);
    }
  }
  if (!isObject(doc)) return fail('OpenAPI file is not an object; its operations are not indexed');
  const version = versionOf(doc);
  if (version === null) {
    return fail('not an OpenAPI 3.x or Swagger 2.0 document (no "openapi" or "swagger" version)');
  }
  if (!/^(2\.0|3\.[0-2])(\.|$)/.test(version)) {
    return fail(
      `OpenAPI version "${version.slice(0, 40)}" is not read (OpenAPI 3.0 to 3.2 and Swagger 2.0 are); its operations are not indexed`,
    );
  }
  return { ok: true, doc, version };
};

/**
 * The document's version as written. Unquoted in YAML, `openapi: 3.1` or `swagger: 2.0` is a number
 * (3.1, 2): hand-written files do so, and the version they mean is read.
 */
const versionOf = (doc: JsonObject): string | null => {
  for (const key of ['openapi', 'swagger'] as const) {
    const value = doc[key];
    if (typeof value === 'string') return value.trim();
    if (typeof value === 'number' && Number.isFinite(value))
      return Number.isInteger(value) ? `${value}.0` : String(value);
  }
  return null;
};

/** A library message as a warning: its first line, and not a page of JSON pointers (a depth error's). */
const firstLine = (message: string): string => {
  const line = message.split('\n')[0] ?? message;
  return line.length > MAX_LIBRARY_MESSAGE_CHARS ? `${line.slice(0, MAX_LIBRARY_MESSAGE_CHARS)}…` : line;
};
const MAX_LIBRARY_MESSAGE_CHARS = 300;

/** `['paths', '/users/{id}', 'get']` → `#/paths/~1users~1{id}/get` (RFC 6901). */
export const jsonPointer = (tokens: readonly (string | number)[]): string =>
  `#${tokens.map((t) => `/${String(t).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')}`;

/**
 * Levels (JSON pointer tokens) below which `$ref`s are left unresolved. The library gives up on the
 * whole document past its own depth limit (500, counting each `$ref` it follows): one chain of 600
 * schemas, each referring to the next, or one schema nested 10,000 levels, cost every page of the file
 * its bodies and responses. Pages write 8 levels of a schema (MAX_SCHEMA_DEPTH), far above this.
 */
export const MAX_DEREFERENCE_DEPTH = 200;

const beyondDereferenceDepth = (pointer: string): boolean => {
  // Each token takes at least two characters: shorter pointers need no count.
  if (pointer.length <= 2 * MAX_DEREFERENCE_DEPTH) return false;
  let tokens = 0;
  for (let i = pointer.indexOf('/'); i !== -1; i = pointer.indexOf('/', i + 1)) tokens++;
  return tokens > MAX_DEREFERENCE_DEPTH;
};

/**
 * Resolves every internal `$ref` of a parsed document with json-schema-ref-parser. External references
 * (other files, URLs) are never followed: a docs repository must not make the server read its own files
 * or call other hosts. Broken references become warnings with their JSON pointer; the rest of the
 * document is still used.
 */
export const dereferenceSpec = async (
  file: string,
  parsed: { doc: JsonObject; version: string },
): Promise<{ spec: OpenApiSpec; warnings: Warning[] }> => {
  const warnings: Warning[] = [];
  let doc: JsonObject = parsed.doc;
  try {
    doc = (await $RefParser.dereference(parsed.doc, {
      resolve: { external: false },
      dereference: { circular: true, excludedPathMatcher: beyondDereferenceDepth },
      continueOnError: true,
    })) as JsonObject;
  } catch (error) {
    const group = error as {
      errors?: { message?: string; path?: (string | number)[] }[];
      files?: { schema?: unknown };
    };
    if (isObject(group.files?.schema)) doc = group.files.schema;
    const errors = group.errors ?? [{ message: (error as Error).message }];
    for (const item of errors.slice(0, MAX_REF_WARNINGS)) {
      const at = item.path ? ` at ${jsonPointer(item.path)}` : '';
      warnings.push({
        file,
        message: `broken $ref${at}: ${firstLine(item.message ?? 'cannot be resolved')}`,
      });
    }
    if (errors.length > MAX_REF_WARNINGS) {
      warnings.push({ file, message: `${errors.length - MAX_REF_WARNINGS} more broken $ref` });
    }
  }
  warnings.push(...externalRefWarnings(file, doc));
  return { spec: { file, version: parsed.version, doc }, warnings };
};

/**
 * The `$ref`s dereferencing left in place because they point outside the document (another file, a
 * URL): not followed, so the operator is told what is missing. The dereferenced document may hold
 * cycles; each object is visited once.
 */
const externalRefWarnings = (file: string, doc: JsonObject): Warning[] => {
  const found: string[] = [];
  let count = 0;
  const seen = new WeakSet<object>();
  const stack: { value: unknown; pointer: string }[] = [{ value: doc, pointer: '' }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, pointer } = next;
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) {
      count++;
      if (found.length < MAX_REF_WARNINGS)
        found.push(`$ref at #${pointer} points outside this file (${ref.slice(0, 200)}); not followed`);
    }
    for (const [key, child] of Object.entries(value))
      if (typeof child === 'object' && child !== null)
        stack.push({ value: child, pointer: `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` });
  }
  const warnings = found.map((message) => ({ file, message }));
  if (count > found.length)
    warnings.push({ file, message: `${count - found.length} more $ref outside this file` });
  return warnings;
};
