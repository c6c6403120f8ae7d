import { boundedJson } from './bounded-json.ts';
import { isObject, type JsonObject, type OpenApiSpec } from './openapi-spec.ts';
import { OPERATION_METHODS } from './operation-ref.ts';
import {
  clip,
  type FieldBudget,
  MAX_OPENAPI_TEXT_CHARS,
  MAX_OPERATION_FIELDS,
  schemaFacts,
  schemaFieldLines,
  sentences,
  typeLabel,
} from './schema-fields.ts';

/**
 * Characters of one generated page. Every operation of a spec repeats what the spec shares (its servers,
 * security schemes, schemas): a 278 KB spec of 1,000 operations sharing a 200 KB server URL stored
 * 200 MB of text (a 420 MB database, 97 s). About twice a page of MAX_OPERATION_FIELDS ordinary fields.
 */
export const MAX_OPERATION_PAGE_CHARS = 200_000;
/** Servers and security schemes listed per page, and characters of each (a URL, a scheme's name). */
const MAX_SHARED_ENTRIES = 10;
const MAX_NAME_CHARS = 200;

const short = (value: string): string =>
  value.length > MAX_NAME_CHARS ? `${value.slice(0, MAX_NAME_CHARS)}…` : value;

/** Code samples (`x-codeSamples`) and examples written per operation page. */
const MAX_CODE_SAMPLES = 8;

export interface OperationPage {
  title: string;
  description: string | null;
  /** CommonMark (never MDX: descriptions in specs are Markdown, and `<` or `{` in them are text). */
  markdown: string;
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

const trimSlash = (p: string): string => (p.length > 1 ? p.replace(/\/+$/, '') : p);

const findPathItem = (items: unknown, path: string): JsonObject | null => {
  if (!isObject(items)) return null;
  if (isObject(items[path])) return items[path];
  for (const [key, item] of Object.entries(items))
    if (trimSlash(key) === trimSlash(path) && isObject(item)) return item;
  return null;
};

const fence = (code: string, lang = ''): string => {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang.replace(/[^\w+-]/g, '')}\n${clip(code)}\n${ticks}`;
};

const exampleOf = (media: JsonObject): unknown => {
  if (media.example !== undefined) return media.example;
  if (isObject(media.examples)) {
    for (const entry of Object.values(media.examples))
      if (isObject(entry) && entry.value !== undefined) return entry.value;
  }
  const schema = isObject(media.schema) ? media.schema : null;
  return schema?.example;
};

const exampleBlock = (value: unknown): string | null => {
  if (value === undefined) return null;
  if (typeof value === 'string') return fence(value);
  return fence(boundedJson(value, MAX_OPENAPI_TEXT_CHARS, 2), 'json');
};

/** Path-item and operation parameters, the operation's winning where both name the same one. */
const parametersOf = (pathItem: JsonObject, operation: JsonObject): JsonObject[] => {
  const byKey = new Map<string, JsonObject>();
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const parameter of list) {
      if (isObject(parameter) && typeof parameter.name === 'string' && typeof parameter.in === 'string') {
        byKey.set(`${parameter.in}\0${parameter.name}`, parameter);
      }
    }
  }
  return [...byKey.values()];
};

const parameterLine = (parameter: JsonObject): string => {
  // OpenAPI 3 keeps the type in `schema`; Swagger 2 on the parameter itself.
  const schema = isObject(parameter.schema) ? parameter.schema : parameter;
  const required = parameter.required === true ? ', required' : '';
  const detail = sentences([
    text(parameter.description) ?? '',
    schemaFacts(schema),
    parameter.deprecated === true ? 'Deprecated.' : '',
  ]).replace(/\s*\n\s*/g, ' ');
  return `- \`${String(parameter.name)}\` (${typeLabel(schema)}${required})${detail ? `: ${clip(detail)}` : ''}`;
};

const PARAMETER_SECTIONS = [
  ['path', 'Path parameters'],
  ['query', 'Query parameters'],
  ['header', 'Header parameters'],
  ['cookie', 'Cookie parameters'],
] as const;

const serversOf = (spec: OpenApiSpec, pathItem: JsonObject, operation: JsonObject): string[] => {
  const list = [operation.servers, pathItem.servers, spec.doc.servers].find(
    (s) => Array.isArray(s) && s.length > 0,
  );
  if (Array.isArray(list))
    return list
      .slice(0, MAX_SHARED_ENTRIES)
      .flatMap((s) => (isObject(s) && typeof s.url === 'string' ? [short(s.url)] : []));
  const host = text(spec.doc.host);
  if (host === null) return [];
  const schemes = Array.isArray(spec.doc.schemes)
    ? spec.doc.schemes.filter((s) => typeof s === 'string')
    : [];
  return [short(`${schemes[0] ?? 'https'}://${host}${text(spec.doc.basePath) ?? ''}`)];
};

const securityLines = (spec: OpenApiSpec, operation: JsonObject): string[] => {
  const requirements = Array.isArray(operation.security) ? operation.security : spec.doc.security;
  if (!Array.isArray(requirements)) return [];
  const components = isObject(spec.doc.components) ? spec.doc.components : {};
  const schemes = isObject(components.securitySchemes)
    ? components.securitySchemes
    : isObject(spec.doc.securityDefinitions)
      ? spec.doc.securityDefinitions
      : {};
  const names = new Set<string>();
  for (const requirement of requirements)
    if (isObject(requirement)) for (const name of Object.keys(requirement)) names.add(name);
  return [...names].slice(0, MAX_SHARED_ENTRIES).map((name) => {
    const scheme = isObject(schemes[name]) ? schemes[name] : {};
    const kind = [
      text(scheme.type),
      text(scheme.scheme),
      text(scheme.in) && `in ${String(scheme.in)}`,
      text(scheme.name),
    ]
      .filter((p) => p)
      .map((p) => short(String(p)))
      .join(', ');
    const description = text(scheme.description);
    return `- \`${short(name)}\`${kind ? ` (${kind})` : ''}${description ? `: ${clip(description).replace(/\s*\n\s*/g, ' ')}` : ''}`;
  });
};

/** Media types and their schemas: OpenAPI 3's `content`, or Swagger 2's single `schema`. */
const contentOf = (holder: JsonObject, fallbackTypes: unknown): [string, JsonObject][] => {
  if (isObject(holder.content)) {
    return Object.entries(holder.content).flatMap(([type, media]) =>
      isObject(media) ? [[type, media] as [string, JsonObject]] : [],
    );
  }
  if (isObject(holder.schema)) {
    const types = Array.isArray(fallbackTypes) ? fallbackTypes.filter((t) => typeof t === 'string') : [];
    return [
      [
        types[0] ?? 'application/json',
        {
          schema: holder.schema,
          example: isObject(holder.examples) ? Object.values(holder.examples)[0] : undefined,
        },
      ],
    ];
  }
  return [];
};

/**
 * Writes one operation as a Markdown page: method and path, description, authorization, parameters,
 * request body and responses with their fields flattened, code samples and examples. Null when the
 * spec has no such operation.
 */
export const renderOperation = (spec: OpenApiSpec, method: string, path: string): OperationPage | null => {
  const webhook = method === 'webhook';
  const pathItem = findPathItem(webhook ? spec.doc.webhooks : spec.doc.paths, path);
  if (!pathItem) return null;
  const operationMethod = webhook ? OPERATION_METHODS.find((m) => isObject(pathItem[m])) : method;
  const operation = operationMethod ? pathItem[operationMethod] : undefined;
  if (!isObject(operation)) return null;

  const mint = isObject(operation['x-mint']) ? operation['x-mint'] : {};
  const metadata = isObject(mint.metadata) ? mint.metadata : {};
  const verb = webhook ? 'WEBHOOK' : method.toUpperCase();
  const title = text(metadata.title) ?? text(operation.summary) ?? `${verb} ${path}`;
  const description = text(metadata.description) ?? text(operation.description) ?? text(pathItem.description);
  const budget: FieldBudget = { left: MAX_OPERATION_FIELDS, cut: false };
  const out: string[] = [];
  let length = 0;
  let full = false;
  // Blocks past MAX_OPERATION_PAGE_CHARS are left out: see there.
  const add = (...blocks: string[]): void => {
    for (const block of blocks) {
      if (full || (out.length > 0 && length + block.length > MAX_OPERATION_PAGE_CHARS)) {
        full = true;
        return;
      }
      out.push(block);
      length += block.length + 2;
    }
  };
  const section = (heading: string, lines: (string | null)[]): void => {
    const body = lines.filter((l): l is string => l !== null && l !== '');
    if (body.length > 0) add(`## ${heading}`, ...body);
  };

  add(`\`${verb} ${path}\`${operation.deprecated === true ? ' (deprecated)' : ''}`);
  const summary = text(operation.summary);
  if (summary && summary !== title) add(clip(summary));
  const servers = serversOf(spec, pathItem, operation);
  if (servers.length > 0) add(`Base URL: ${servers.map((s) => `\`${s}\``).join(', ')}`);
  const content = text(mint.content);
  if (content) add(clip(content));
  // The description is the page's own description, indexed with its first chunk; here only when it differs.
  const longDescription = text(operation.description);
  if (longDescription && longDescription !== description) add(clip(longDescription));

  section('Authorization', securityLines(spec, operation));
  const parameters = parametersOf(pathItem, operation);
  for (const [place, heading] of PARAMETER_SECTIONS) {
    section(heading, parameters.filter((p) => p.in === place).map(parameterLine));
  }

  // Swagger 2: the body is a parameter, form fields are parameters too.
  const bodyParameter = parameters.find((p) => p.in === 'body');
  const requestBody = isObject(operation.requestBody) ? operation.requestBody : (bodyParameter ?? null);
  if (requestBody) {
    for (const [type, media] of contentOf(requestBody, operation.consumes ?? spec.doc.consumes)) {
      const schema = isObject(media.schema) ? media.schema : {};
      const fields = schemaFieldLines(schema, budget);
      section(`Request body (${type})`, [
        text(requestBody.description) && clip(String(requestBody.description)),
        requestBody.required === true ? 'Required.' : null,
        // A body without fields (a file, a list of strings, one of two plain types) still says its type.
        fields.length === 0 && Object.keys(schema).length > 0 ? `Type: ${typeLabel(schema)}.` : null,
        schemaFacts(schema) || null,
        ...fields,
      ]);
      const example = exampleBlock(exampleOf(media));
      if (example) section('Request example', [example]);
    }
  }
  const formFields = parameters.filter((p) => p.in === 'formData');
  if (formFields.length > 0) section('Request body (form fields)', formFields.map(parameterLine));

  if (isObject(operation.responses)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!isObject(response)) continue;
      const lines: (string | null)[] = [text(response.description) && clip(String(response.description))];
      const media = contentOf(response, operation.produces ?? spec.doc.produces);
      for (const [type, entry] of media) {
        const schema = isObject(entry.schema) ? entry.schema : {};
        if (media.length > 1 || type !== 'application/json') lines.push(`Content type \`${type}\`:`);
        lines.push(...schemaFieldLines(schema, budget));
        lines.push(exampleBlock(exampleOf(entry)));
      }
      if (isObject(response.headers)) {
        for (const [name, header] of Object.entries(response.headers)) {
          if (isObject(header)) lines.push(parameterLine({ ...header, name, in: 'header' }));
        }
      }
      section(`Response ${status}`, lines);
    }
  }

  const samples = operation['x-codeSamples'] ?? operation['x-code-samples'];
  if (Array.isArray(samples)) {
    const blocks = samples.slice(0, MAX_CODE_SAMPLES).flatMap((sample) => {
      if (!isObject(sample) || typeof sample.source !== 'string') return [];
      const label = text(sample.label) ?? text(sample.lang);
      return [
        label ? `${label}:` : null,
        fence(sample.source, typeof sample.lang === 'string' ? sample.lang : ''),
      ];
    });
    section('Code samples', blocks);
  }
  if (budget.cut && !full) out.push(`Fields past the first ${MAX_OPERATION_FIELDS} are not listed.`);
  if (full)
    out.push(
      `The rest of this operation is not listed (pages stop at ${MAX_OPERATION_PAGE_CHARS} characters).`,
    );
  return { title, description, markdown: `${out.join('\n\n')}\n` };
};
