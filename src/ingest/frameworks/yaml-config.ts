import {
  type Alias,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
} from 'yaml';
import { MAX_STATIC_DEPTH, MAX_STATIC_NODES } from './limits.ts';
import { opaque, type StaticObject, type StaticValue } from './static-value.ts';

export type YamlResult =
  /** `overBudget`: more than `maxNodes` values; those past it are opaque. */
  { ok: true; value: StaticValue; overBudget: boolean } | { ok: false; line?: number; reason: string };

/**
 * Reads a YAML (or JSON, a subset of it) config as a StaticValue, walking the document's nodes rather
 * than building JS objects: keys like `__proto__` stay data, aliases are expanded under the node budget
 * (a billion-laughs document stops at MAX_STATIC_NODES), and every value keeps its line. Tags the yaml
 * package does not know (mkdocs.yml's `!!python/name:…`, `!relative`) leave their value as it is written,
 * which is all a navigation reader needs; `!ENV` is its default (below).
 */
export const readYamlConfig = (source: string, maxNodes = MAX_STATIC_NODES): YamlResult => {
  const lineCounter = new LineCounter();
  let nodes = 0;
  try {
    const doc = parseDocument(source, {
      lineCounter,
      uniqueKeys: false,
      strict: false,
      logLevel: 'silent',
      prettyErrors: false,
    });
    const [error] = doc.errors;
    if (error) {
      const line = error.pos?.[0] === undefined ? undefined : lineCounter.linePos(error.pos[0]).line;
      const reason = `invalid YAML: ${error.message.split('\n')[0] ?? error.code}`;
      return line === undefined ? { ok: false, reason } : { ok: false, line, reason };
    }
    const lineAt = (node: { range?: readonly number[] | null } | null | undefined): number =>
      node?.range?.[0] === undefined ? 0 : lineCounter.linePos(node.range[0]).line;

    // An alias resolves by walking the document for its anchor: once per alias, not once per visit (a
    // billion-laughs document visits the same few aliases up to the node budget).
    const targets = new Map<Alias, Node | undefined>();
    const resolved = (alias: Alias): Node | undefined => {
      if (!targets.has(alias)) targets.set(alias, alias.resolve(doc) as Node | undefined);
      return targets.get(alias);
    };
    const convert = (node: unknown, depth: number, aliasDepth: number): StaticValue => {
      const line = lineAt(node as Node);
      if (++nodes > maxNodes) return opaque(`more than ${maxNodes} values`, line);
      if (depth > MAX_STATIC_DEPTH)
        return opaque(`a value nested deeper than ${MAX_STATIC_DEPTH} levels`, line);
      if (isAlias(node)) {
        const target = aliasDepth > MAX_STATIC_DEPTH ? undefined : resolved(node);
        return target ? convert(target, depth + 1, aliasDepth + 1) : opaque(`alias *${node.source}`, line);
      }
      // MkDocs' `!ENV VAR` and `!ENV [VAR, …, default]`: Docent reads no environment for a docs folder,
      // so the value is the default MkDocs falls back to when no variable is set (none: null).
      if ((isSeq(node) || isScalar(node)) && node.tag === '!ENV') {
        const fallback =
          isSeq(node) && node.items.length >= 2 ? node.items[node.items.length - 1] : undefined;
        return fallback === undefined ? { kind: 'null', line } : convert(fallback, depth + 1, aliasDepth);
      }
      if (isScalar(node)) {
        const value = node.value;
        if (typeof value === 'string') return { kind: 'string', value, line };
        if (typeof value === 'number') return { kind: 'number', value, line };
        if (typeof value === 'boolean') return { kind: 'boolean', value, line };
        if (value === null || value === undefined) return { kind: 'null', line };
        return opaque(`a ${typeof value} value`, line);
      }
      if (isSeq(node))
        return { kind: 'array', line, items: node.items.map((item) => convert(item, depth + 1, aliasDepth)) };
      if (isMap(node)) {
        const object: StaticObject = { kind: 'object', entries: new Map(), opaque: [], line };
        for (const pair of node.items) {
          if (!isPair(pair)) continue;
          const key = isScalar(pair.key) ? pair.key.value : undefined;
          if (typeof key !== 'string' && typeof key !== 'number' && typeof key !== 'boolean') {
            object.opaque.push({ what: 'a key that is not text', line: lineAt(pair.key as Node) });
            continue;
          }
          object.entries.set(String(key), convert(pair.value, depth + 1, aliasDepth));
        }
        return object;
      }
      return { kind: 'null', line };
    };
    const value = convert(doc.contents, 0, 0);
    return { ok: true, value, overBudget: nodes > maxNodes };
  } catch (error) {
    // The yaml package reports problems as doc.errors; this is for the unforeseen (a stack overflow).
    return { ok: false, reason: `cannot read YAML: ${(error as Error).message}` };
  }
};
