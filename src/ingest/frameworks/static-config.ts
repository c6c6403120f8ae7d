import { parse, type parseExpression } from '@babel/parser';
import { MAX_STATIC_DEPTH, MAX_STATIC_NODES } from './limits.ts';
import { opaque, type StaticObject, type StaticValue } from './static-value.ts';

/**
 * Reads a JS/TS config module (docusaurus.config.ts, astro.config.mjs, .vitepress/config.mts, sidebars.js)
 * without running it: the module is parsed, and its default export (or `module.exports`) is turned into a
 * StaticValue. Object and array literals, strings, numbers, booleans, top-level `const`s they name, and
 * calls (as a callee and arguments, for the reader to interpret: `defineConfig({...})`) are read; anything
 * else is an opaque value saying what it is. Running the config would run arbitrary code from the docs
 * repository on the server, so it is never imported.
 */

type Program = ReturnType<typeof parse>['program'];
type Statement = Program['body'][number];
type Expression = ReturnType<typeof parseExpression>;
type Node = Statement | Expression | { type: string; loc?: { start: { line: number } } | null };

export interface StaticModule {
  /** The default export or `module.exports`; null when the module exports nothing readable as a value. */
  exported: StaticValue | null;
}

export type StaticModuleResult =
  | { ok: true; module: StaticModule }
  | { ok: false; line?: number; reason: string };

type Binding =
  | { kind: 'value'; node: Node }
  | { kind: 'import'; source: string; imported: string }
  | { kind: 'function'; node: Node };

const TS_WRAPPERS = new Set([
  'TSAsExpression',
  'TSSatisfiesExpression',
  'TSNonNullExpression',
  'TSTypeAssertion',
  'ParenthesizedExpression',
  'TSInstantiationExpression',
]);

const lineOf = (node: Node): number => node.loc?.start.line ?? 0;

// Babel's node types are a union of hundreds of shapes; fields are read through this narrow view
// after `type` has been checked, which keeps the walker short without casting to `any`.
type Loose = { type: string; loc?: { start: { line: number } } | null; [key: string]: unknown };
const loose = (node: Node): Loose => node as unknown as Loose;
const child = (node: Node, key: string): Node | null => {
  const value = loose(node)[key];
  return value !== null && typeof value === 'object' && 'type' in value ? (value as Node) : null;
};
const children = (node: Node, key: string): (Node | null)[] => {
  const value = loose(node)[key];
  return Array.isArray(value) ? (value as (Node | null)[]) : [];
};

const isTypeScript = (file: string): boolean => /\.[cm]?tsx?$/i.test(file);

const parseModule = (source: string, file: string): Program => {
  const plugins = isTypeScript(file) ? (['typescript'] as const) : (['jsx'] as const);
  return parse(source, {
    sourceType: 'unambiguous',
    plugins: [...plugins, 'importAttributes', 'decorators-legacy'],
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
    errorRecovery: false,
    attachComment: false,
    tokens: false,
  }).program;
};

/** `module.exports`, `require.resolve`: the dotted name of an identifier or member chain, or null. */
const dottedName = (node: Node): string | null => {
  if (node.type === 'Identifier') return String(loose(node).name);
  if (node.type === 'MemberExpression' && loose(node).computed !== true) {
    const object = child(node, 'object');
    const property = child(node, 'property');
    if (!object || property?.type !== 'Identifier') return null;
    const base = dottedName(object);
    return base === null ? null : `${base}.${String(loose(property).name)}`;
  }
  return null;
};

const keyName = (property: Node): string | null => {
  const key = child(property, 'key');
  if (!key) return null;
  const computed = loose(property).computed === true;
  if (key.type === 'Identifier' && !computed) return String(loose(key).name);
  if (key.type === 'StringLiteral') return String(loose(key).value);
  if (key.type === 'NumericLiteral') return String(loose(key).value);
  if (key.type === 'TemplateLiteral' && children(key, 'expressions').length === 0) return templateText(key);
  return null;
};

const templateText = (node: Node): string =>
  children(node, 'quasis')
    .map((quasi) => {
      const value = quasi ? (loose(quasi).value as { cooked?: string | null; raw: string }) : null;
      return value ? (value.cooked ?? value.raw) : '';
    })
    .join('');

/** The expression a function returns, when its body ends in `return <expr>` (or is an arrow expression). */
const returnedExpression = (fn: Node): { expression: Node; locals: Node[] } | null => {
  const body = child(fn, 'body');
  if (!body) return null;
  if (body.type !== 'BlockStatement') return { expression: body, locals: [] };
  const statements = children(body, 'body').filter((s): s is Node => s !== null);
  const last = statements[statements.length - 1];
  const argument = last?.type === 'ReturnStatement' ? child(last, 'argument') : null;
  return argument ? { expression: argument, locals: statements.slice(0, -1) } : null;
};

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

class Converter {
  private nodes = 0;
  private readonly resolving = new Set<string>();

  constructor(private readonly scopes: Map<string, Binding>[]) {}

  private lookup(name: string): Binding | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const binding = this.scopes[i]?.get(name);
      if (binding) return binding;
    }
    return undefined;
  }

  withLocals(statements: Node[], run: () => StaticValue): StaticValue {
    const scope = new Map<string, Binding>();
    for (const statement of statements) collectBindings(statement, scope);
    this.scopes.push(scope);
    try {
      return run();
    } finally {
      this.scopes.pop();
    }
  }

  /** The value of an exported expression; a function there is read through its `return`. */
  exported(node: Node): StaticValue {
    let target: Node = node;
    if (target.type === 'Identifier') {
      const binding = this.lookup(String(loose(target).name));
      if (binding?.kind === 'function') target = binding.node;
    }
    if (FUNCTION_TYPES.has(target.type)) {
      const returned = returnedExpression(target);
      if (!returned) return opaque('a function whose result cannot be read statically', lineOf(target));
      return this.withLocals(returned.locals, () => this.value(returned.expression, 0));
    }
    return this.value(target, 0);
  }

  value(node: Node, depth: number): StaticValue {
    const line = lineOf(node);
    if (++this.nodes > MAX_STATIC_NODES) return opaque(`more than ${MAX_STATIC_NODES} values`, line);
    if (depth > MAX_STATIC_DEPTH)
      return opaque(`a value nested deeper than ${MAX_STATIC_DEPTH} levels`, line);
    const n = loose(node);
    switch (node.type) {
      case 'StringLiteral':
        return { kind: 'string', value: String(n.value), line };
      case 'NumericLiteral':
        return { kind: 'number', value: Number(n.value), line };
      case 'BooleanLiteral':
        return { kind: 'boolean', value: n.value === true, line };
      case 'NullLiteral':
        return { kind: 'null', line };
      case 'TemplateLiteral':
        return children(node, 'expressions').length === 0
          ? { kind: 'string', value: templateText(node), line }
          : opaque('a template string with embedded expressions', line);
      case 'UnaryExpression': {
        const argument = child(node, 'argument');
        if (n.operator === '-' && argument?.type === 'NumericLiteral')
          return { kind: 'number', value: -Number(loose(argument).value), line };
        return opaque(`an expression (${String(n.operator)})`, line);
      }
      case 'ArrayExpression':
        return {
          kind: 'array',
          line,
          items: children(node, 'elements')
            .filter((element): element is Node => element !== null)
            .map((element) =>
              element.type === 'SpreadElement'
                ? opaque(`a spread of ${this.describe(child(element, 'argument'))}`, lineOf(element))
                : this.value(element, depth + 1),
            ),
        };
      case 'ObjectExpression':
        return this.object(node, depth);
      case 'Identifier':
        return this.identifier(String(n.name), line, depth);
      case 'CallExpression':
      case 'NewExpression':
        return this.call(node, depth);
      default:
        if (TS_WRAPPERS.has(node.type)) {
          const inner = child(node, 'expression');
          return inner ? this.value(inner, depth) : opaque('an empty expression', line);
        }
        return opaque(this.describe(node), line);
    }
  }

  private object(node: Node, depth: number): StaticObject {
    const result: StaticObject = { kind: 'object', entries: new Map(), opaque: [], line: lineOf(node) };
    for (const property of children(node, 'properties')) {
      if (!property) continue;
      if (property.type === 'SpreadElement') {
        const spread = child(property, 'argument');
        const value = spread ? this.value(spread, depth + 1) : undefined;
        if (value?.kind === 'object') {
          // A spread of an object literal known here merges like JS does: later keys win.
          for (const [key, entry] of value.entries) result.entries.set(key, entry);
          result.opaque.push(...value.opaque);
        } else {
          result.opaque.push({ what: `a spread of ${this.describe(spread)}`, line: lineOf(property) });
        }
        continue;
      }
      const key = keyName(property);
      if (key === null) {
        result.opaque.push({ what: 'a computed key', line: lineOf(property) });
        continue;
      }
      if (property.type === 'ObjectMethod') {
        result.entries.set(key, opaque('a function', lineOf(property)));
        continue;
      }
      const value = child(property, 'value');
      if (value) result.entries.set(key, this.value(value, depth + 1));
    }
    return result;
  }

  private identifier(name: string, line: number, depth: number): StaticValue {
    if (name === 'undefined') return opaque('undefined', line);
    const binding = this.lookup(name);
    if (!binding) return opaque(`the variable ${name}`, line);
    if (binding.kind === 'import') return opaque(`"${name}" imported from "${binding.source}"`, line);
    if (binding.kind === 'function') return opaque(`the function ${name}`, line);
    if (this.resolving.has(name)) return opaque(`the variable ${name} (defined in terms of itself)`, line);
    this.resolving.add(name);
    try {
      return this.value(binding.node, depth + 1);
    } finally {
      this.resolving.delete(name);
    }
  }

  private call(node: Node, depth: number): StaticValue {
    const callee = child(node, 'callee');
    const name = callee ? dottedName(callee) : null;
    if (name === null) return opaque(this.describe(node), lineOf(node));
    const root = name.split('.')[0] ?? name;
    const binding = this.lookup(root);
    return {
      kind: 'call',
      callee: name,
      from: binding?.kind === 'import' ? binding.source : null,
      line: lineOf(node),
      args: children(node, 'arguments')
        .filter((arg): arg is Node => arg !== null)
        .map((arg) =>
          arg.type === 'SpreadElement'
            ? opaque(`a spread of ${this.describe(child(arg, 'argument'))}`, lineOf(arg))
            : this.value(arg, depth + 1),
        ),
    };
  }

  /** Words for a warning: what the expression is, never its evaluated content. */
  describe(node: Node | null): string {
    if (!node) return 'nothing';
    const name = dottedName(node);
    if (node.type === 'Identifier' && name !== null) {
      const binding = this.lookup(name);
      if (binding?.kind === 'import') return `"${name}" imported from "${binding.source}"`;
      return `the variable ${name}`;
    }
    if (name !== null) return `the value ${name}`;
    if (node.type === 'CallExpression') {
      const callee = child(node, 'callee');
      const calleeName = callee ? dottedName(callee) : null;
      return calleeName ? `a function call (${calleeName})` : 'a function call';
    }
    if (FUNCTION_TYPES.has(node.type)) return 'a function';
    if (node.type === 'AwaitExpression') return 'an awaited value';
    if (node.type === 'ConditionalExpression' || node.type === 'LogicalExpression')
      return 'a value chosen at run time';
    return `an expression (${node.type})`;
  }
}

/** Top-level (or function-body) names a value may refer to. */
const collectBindings = (statement: Node, scope: Map<string, Binding>): void => {
  let target: Node = statement;
  if (target.type === 'ExportNamedDeclaration') {
    const declaration = child(target, 'declaration');
    if (!declaration) return;
    target = declaration;
  }
  if (target.type === 'ImportDeclaration') {
    const source = String(loose(child(target, 'source') ?? target).value ?? '');
    for (const specifier of children(target, 'specifiers')) {
      const local = specifier ? child(specifier, 'local') : null;
      if (!specifier || !local) continue;
      const imported = child(specifier, 'imported');
      scope.set(String(loose(local).name), {
        kind: 'import',
        source,
        imported: imported ? String(loose(imported).name ?? loose(imported).value) : 'default',
      });
    }
    return;
  }
  if (target.type === 'VariableDeclaration') {
    for (const declarator of children(target, 'declarations')) {
      const id = declarator ? child(declarator, 'id') : null;
      const init = declarator ? child(declarator, 'init') : null;
      if (!id || !init) continue;
      if (id.type === 'ObjectPattern') {
        // `const { docsOptions } = require('./x')`: names from a module the reader cannot see.
        const source = requiredModule(init);
        for (const property of children(id, 'properties')) {
          const local = property ? child(property, 'value') : null;
          if (source !== null && local?.type === 'Identifier')
            scope.set(String(loose(local).name), {
              kind: 'import',
              source,
              imported: String(loose(local).name),
            });
        }
        continue;
      }
      if (id.type !== 'Identifier') continue;
      const name = String(loose(id).name);
      // `const x = require('y')` is a module the reader cannot see: treat it as an import.
      const required = requiredModule(init);
      scope.set(
        name,
        required !== null
          ? { kind: 'import', source: required, imported: 'default' }
          : FUNCTION_TYPES.has(init.type)
            ? { kind: 'function', node: init }
            : { kind: 'value', node: init },
      );
    }
    return;
  }
  if (target.type === 'FunctionDeclaration') {
    const id = child(target, 'id');
    if (id) scope.set(String(loose(id).name), { kind: 'function', node: target });
  }
};

const requiredModule = (node: Node): string | null => {
  if (node.type !== 'CallExpression') return null;
  const callee = child(node, 'callee');
  const [first] = children(node, 'arguments');
  if (callee?.type !== 'Identifier' || loose(callee).name !== 'require' || first?.type !== 'StringLiteral')
    return null;
  return String(loose(first).value);
};

/** `module.exports = X`, `exports.default = X`: X. */
const commonJsExport = (statement: Node): Node | null => {
  if (statement.type !== 'ExpressionStatement') return null;
  const expression = child(statement, 'expression');
  if (expression?.type !== 'AssignmentExpression') return null;
  const left = child(expression, 'left');
  const name = left ? dottedName(left) : null;
  if (name !== 'module.exports' && name !== 'exports.default' && name !== 'module.exports.default')
    return null;
  return child(expression, 'right');
};

/**
 * Parses `source` (named `file`, whose extension picks TypeScript or JavaScript syntax) and reads its
 * default export. Never throws: a syntax error, or a stack overflow on absurd nesting, is a reason.
 */
export const readStaticModule = (source: string, file: string): StaticModuleResult => {
  let program: Program;
  try {
    program = parseModule(source, file);
  } catch (error) {
    const loc = (error as { loc?: { line?: number } }).loc;
    const reason =
      error instanceof RangeError
        ? 'nested too deeply to parse'
        : `syntax error: ${(error as Error).message.replace(/\s*\(\d+:\d+\)$/, '')}`;
    return typeof loc?.line === 'number' ? { ok: false, line: loc.line, reason } : { ok: false, reason };
  }
  try {
    const scope = new Map<string, Binding>();
    let exportedNode: Node | null = null;
    for (const statement of program.body) {
      collectBindings(statement, scope);
      if (statement.type === 'ExportDefaultDeclaration') exportedNode = child(statement, 'declaration');
      const cjs = commonJsExport(statement);
      if (cjs) exportedNode = cjs;
    }
    const converter = new Converter([scope]);
    return { ok: true, module: { exported: exportedNode ? converter.exported(exportedNode) : null } };
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, reason: 'nested too deeply to read' };
    throw error;
  }
};
