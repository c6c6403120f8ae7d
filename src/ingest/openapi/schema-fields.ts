import { boundedJson } from './bounded-json.ts';
import { isObject, type JsonObject } from './openapi-spec.ts';

/** Nesting levels of a schema written out; deeper properties are summarized by their parent's type. */
export const MAX_SCHEMA_DEPTH = 8;
/** Fields written for one operation page, over all its bodies and responses. */
export const MAX_OPERATION_FIELDS = 600;
/** Characters of one description or example kept on a generated page. */
export const MAX_OPENAPI_TEXT_CHARS = 4_000;

/** A shared budget, so one page's bodies and responses together stay bounded. */
export interface FieldBudget {
  left: number;
  /** Set once fields were left out, to say so on the page. */
  cut: boolean;
}

export const clip = (value: string): string =>
  value.length > MAX_OPENAPI_TEXT_CHARS ? `${value.slice(0, MAX_OPENAPI_TEXT_CHARS)}…` : value;

/** A default, constant, example or enum value as JSON: bounded, and never throwing on a cycle. */
const literal = (value: unknown): string => boundedJson(value, MAX_OPENAPI_TEXT_CHARS);

const oneLine = (value: string): string =>
  clip(value)
    .replace(/\s*\n\s*/g, ' ')
    .trim();

/** A description followed by facts reads as sentences: `Model name. Default: 5.` */
export const sentences = (parts: readonly string[]): string =>
  parts
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p, i, all) => (i < all.length - 1 && !/[.!?:)`]$/.test(p) ? `${p}.` : p))
    .join(' ');

/**
 * Schemas one type label looks at. Each field's label names the variants of its choices, and theirs in
 * turn: with a budget per label only, 30 untitled variants each made of 30 more, 4 levels down, were
 * 30^4 labels for one field, and the page never finished.
 */
export const MAX_TYPE_LABEL_SCHEMAS = 32;

/** `string`, `integer (int64)`, `array of object`, `string or null`, `one of: A, B`. */
export const typeLabel = (schema: JsonObject): string =>
  labelOf(schema, new Set(), { left: MAX_TYPE_LABEL_SCHEMAS });

const labelOf = (schema: JsonObject, seen: ReadonlySet<JsonObject>, budget: { left: number }): string => {
  // Variants of variants are named by their outer type: shared sub-schemas must not multiply the work.
  if (seen.has(schema) || seen.size > 3 || budget.left <= 0)
    return typeof schema.type === 'string' ? schema.type : 'object';
  budget.left--;
  const nested = new Set(seen).add(schema);
  let type: string;
  if (Array.isArray(schema.type)) type = schema.type.filter((t) => typeof t === 'string').join(' or ');
  else if (typeof schema.type === 'string') type = schema.type;
  else if (isObject(schema.properties)) type = 'object';
  else if (isObject(schema.items)) type = 'array';
  else if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const variants = ((schema.oneOf ?? schema.anyOf) as unknown[]).filter(isObject);
    const names: string[] = [];
    for (const variant of variants) {
      // Every name counts, titles and the ones past the nesting bound too: a choice of thousands of
      // variants is otherwise one long line per field.
      if (budget.left <= 0) {
        names.push('…');
        break;
      }
      budget.left--;
      names.push(
        typeof variant.title === 'string' ? oneLine(variant.title) : labelOf(variant, nested, budget),
      );
    }
    type = names.join(' or ');
  } else if (Array.isArray(schema.allOf)) type = 'object';
  else type = 'any';
  if (type.includes('array') && isObject(schema.items)) {
    type = type.replace('array', `array of ${labelOf(schema.items, nested, budget)}`);
  }
  if (typeof schema.format === 'string') type += ` (${oneLine(schema.format)})`;
  if (schema.nullable === true) type += ' or null';
  return type;
};

const facts = (schema: JsonObject): string[] => {
  const out: string[] = [];
  if (schema.deprecated === true) out.push('Deprecated.');
  if (schema.readOnly === true) out.push('Read-only.');
  if (schema.writeOnly === true) out.push('Write-only.');
  if (Array.isArray(schema.enum)) out.push(`One of: ${enumValues(schema.enum)}.`);
  if (schema.default !== undefined) out.push(`Default: \`${oneLine(literal(schema.default))}\`.`);
  // A list of plain values (`status=available&status=sold`): what each may be is on its items.
  const items = isObject(schema.items) ? schema.items : null;
  if (items && !isObject(items.properties)) {
    if (Array.isArray(items.enum)) out.push(`Each one of: ${enumValues(items.enum)}.`);
    if (items.default !== undefined && schema.default === undefined)
      out.push(`Default: \`${oneLine(literal(items.default))}\`.`);
  }
  if (schema.const !== undefined) out.push(`Always \`${oneLine(literal(schema.const))}\`.`);
  // OpenAPI 3.0 marks a bound excluded with a boolean beside it; 3.1 gives the excluded bound itself.
  for (const [bound, excluded, label, strict] of [
    ['minimum', 'exclusiveMinimum', 'Minimum', 'More than'],
    ['maximum', 'exclusiveMaximum', 'Maximum', 'Less than'],
  ] as const) {
    const value = schema[bound];
    const flag = schema[excluded];
    if (typeof flag === 'number') out.push(`${strict}: \`${flag}\`.`);
    if (typeof value === 'number')
      out.push(flag === true ? `${strict}: \`${value}\`.` : `${label}: \`${value}\`.`);
  }
  for (const [key, label] of [
    ['multipleOf', 'Multiple of'],
    ['minLength', 'Minimum length'],
    ['maxLength', 'Maximum length'],
    ['minItems', 'Minimum items'],
    ['maxItems', 'Maximum items'],
    ['pattern', 'Pattern'],
  ] as const) {
    const value = schema[key];
    if (typeof value === 'number' || typeof value === 'string') out.push(`${label}: \`${value}\`.`);
  }
  const example = schema.example ?? (Array.isArray(schema.examples) ? schema.examples[0] : undefined);
  if (example !== undefined && !isObject(example) && !Array.isArray(example)) {
    out.push(`Example: \`${oneLine(literal(example))}\`.`);
  }
  return out;
};

const enumValues = (values: unknown[]): string =>
  `${values
    .slice(0, 30)
    .map((v) => `\`${oneLine(literal(v))}\``)
    .join(', ')}${values.length > 30 ? ', …' : ''}`;

/**
 * Properties of an object schema, `allOf` parts merged in, with which of them are required. A name
 * several parts define is one field, as the later (more specific) part defines it, in the place the
 * first gave it.
 */
const propertiesOf = (
  schema: JsonObject,
  seen: ReadonlySet<JsonObject>,
): { properties: [string, JsonObject][]; required: Set<string> } => {
  const properties = new Map<string, JsonObject>();
  const required = new Set<string>();
  // Each part once: parts shared through `allOf` level after level (10 parts of 10 parts, 8 levels) were
  // visited once per path to them, 10^8 times, and the page never finished.
  const visited = new Set<JsonObject>(seen);
  const visit = (part: JsonObject, depth: number): void => {
    if (visited.has(part) || depth > MAX_SCHEMA_DEPTH) return;
    visited.add(part);
    if (Array.isArray(part.required))
      for (const name of part.required) if (typeof name === 'string') required.add(name);
    if (isObject(part.properties)) {
      for (const [name, value] of Object.entries(part.properties))
        if (isObject(value)) properties.set(name, value);
    }
    if (Array.isArray(part.allOf)) for (const sub of part.allOf) if (isObject(sub)) visit(sub, depth + 1);
  };
  visit(schema, 0);
  return { properties: [...properties], required };
};

/**
 * Writes a schema as Markdown list lines, one per field, with dotted names (`options.temperature`,
 * `messages[].role`) so that a reader's question about a nested field finds it. A schema met again
 * inside itself is named, not expanded: `$ref` cycles end there.
 */
export const schemaFieldLines = (schema: JsonObject, budget: FieldBudget): string[] => {
  const lines: string[] = [];
  const walk = (node: JsonObject, prefix: string, depth: number, seen: ReadonlySet<JsonObject>): void => {
    if (depth >= MAX_SCHEMA_DEPTH) return;
    const trail = new Set(seen).add(node);
    const item = isObject(node.items) ? node.items : null;
    if (item && !isObject(node.properties)) {
      if (!seen.has(item)) walk(item, `${prefix}[]`, depth + 1, trail);
      return;
    }
    const { properties, required } = propertiesOf(node, seen);
    for (const [name, property] of properties) {
      if (budget.left <= 0) {
        budget.cut = true;
        return;
      }
      budget.left--;
      const field = prefix === '' ? name : `${prefix}.${name}`;
      const recursive = trail.has(property);
      // A list of an enclosing structure (a tree's `children`), or a choice with one (an id or the
      // object itself): written, but not expanded again.
      const recursiveInside =
        !recursive &&
        ((isObject(property.items) && trail.has(property.items)) ||
          [property.oneOf, property.anyOf].some(
            (variants) => Array.isArray(variants) && variants.some((v) => isObject(v) && trail.has(v)),
          ));
      const parts = [`- \`${field}\` (${typeLabel(property)}${required.has(name) ? ', required' : ''})`];
      const description = typeof property.description === 'string' ? oneLine(property.description) : '';
      const detail = sentences([description, ...facts(property)]);
      const mark = recursive
        ? 'Same structure as its parent (recursive).'
        : recursiveInside
          ? 'Holds the structure it is part of (recursive).'
          : '';
      if (mark) parts.push(`: ${detail ? `${detail} ` : ''}${mark}`);
      else if (detail) parts.push(`: ${detail}`);
      lines.push(parts.join(''));
      if (!recursive) walk(property, field, depth + 1, trail);
    }
    for (const key of ['oneOf', 'anyOf'] as const) {
      const variants = node[key];
      if (!Array.isArray(variants)) continue;
      for (const [index, variant] of variants.entries()) {
        if (!isObject(variant) || trail.has(variant)) continue;
        const { properties: inner } = propertiesOf(variant, trail);
        if (inner.length === 0) continue;
        const label = typeof variant.title === 'string' ? variant.title : `option ${index + 1}`;
        if (budget.left <= 0) {
          budget.cut = true;
          return;
        }
        budget.left--;
        lines.push(
          `- ${prefix === '' ? '' : `\`${prefix}\` `}${key === 'oneOf' ? 'one of' : 'any of'}: ${oneLine(label)}`,
        );
        walk(variant, prefix, depth + 1, trail);
      }
    }
    if (isObject(node.additionalProperties) && !trail.has(node.additionalProperties)) {
      walk(node.additionalProperties, prefix === '' ? '*' : `${prefix}.*`, depth + 1, trail);
    }
  };
  walk(schema, '', 0, new Set());
  return lines;
};

/** One line of facts about a parameter or top-level schema (its enum, default, example…). */
export const schemaFacts = (schema: JsonObject): string => facts(schema).join(' ');
