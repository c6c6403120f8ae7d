/**
 * A config value read without running anything: what a JS/TS object literal, a YAML document or a JSON
 * file says, with the line it is on. Objects are Maps, so keys such as `__proto__` or `constructor` are
 * plain data. What cannot be known statically (a variable, a function call, a spread of an import) is an
 * `opaque` value that says what it is, so the reader can warn with the file and line and fall back.
 */
export type StaticValue =
  | { kind: 'string'; value: string; line: number }
  | { kind: 'number'; value: number; line: number }
  | { kind: 'boolean'; value: boolean; line: number }
  | { kind: 'null'; line: number }
  | { kind: 'array'; items: StaticValue[]; line: number }
  | StaticObject
  | StaticCall
  | { kind: 'opaque'; what: string; line: number };

export interface StaticObject {
  kind: 'object';
  entries: Map<string, StaticValue>;
  /** Spreads and computed keys: any key missing from `entries` may come from one of these. */
  opaque: { what: string; line: number }[];
  line: number;
}

/** A call such as `defineConfig({...})`, `starlight({...})` or `require.resolve('./sidebars.js')`. */
export interface StaticCall {
  kind: 'call';
  /** Dotted callee as written (`require.resolve`, `starlight`). */
  callee: string;
  /** Module the callee was imported from, when it was (`@astrojs/starlight`). */
  from: string | null;
  args: StaticValue[];
  line: number;
}

export const opaque = (what: string, line: number): StaticValue => ({ kind: 'opaque', what, line });

export const asString = (value: StaticValue | undefined): string | undefined =>
  value?.kind === 'string' ? value.value : undefined;

export const asBoolean = (value: StaticValue | undefined): boolean | undefined =>
  value?.kind === 'boolean' ? value.value : undefined;

export const asNumber = (value: StaticValue | undefined): number | undefined =>
  value?.kind === 'number' ? value.value : undefined;

export const asObject = (value: StaticValue | undefined): StaticObject | undefined =>
  value?.kind === 'object' ? value : undefined;

export const asArray = (value: StaticValue | undefined): StaticValue[] | undefined =>
  value?.kind === 'array' ? value.items : undefined;

/**
 * `object[key]`; when the key is absent but the object has a spread (or computed key) it might come from,
 * an opaque value naming the spread, so that "not set" and "cannot tell" stay apart.
 */
export const field = (object: StaticValue | undefined, key: string): StaticValue | undefined => {
  if (object?.kind !== 'object') return undefined;
  const value = object.entries.get(key);
  if (value !== undefined) return value;
  const hidden = object.opaque[0];
  return hidden ? opaque(`${hidden.what}, which may set "${key}"`, hidden.line) : undefined;
};

/** `defineConfig({...})` and the like: the first argument, through every call to one of `names` around it. */
export const unwrapCall = (
  value: StaticValue | undefined,
  names: readonly string[],
): StaticValue | undefined => {
  // Wrappers nest (`withMermaid(defineConfig({…}))`); the parsed value's depth bounds the loop.
  let inner = value;
  while (inner?.kind === 'call' && names.includes(inner.callee)) inner = inner.args[0];
  return inner;
};

/** Why a value is not what was needed, for warnings: `a function call (getSidebar)`. */
export const describe = (value: StaticValue): string => {
  switch (value.kind) {
    case 'opaque':
      return value.what;
    case 'call':
      return `a function call (${value.callee})`;
    case 'array':
      return 'a list';
    case 'object':
      return 'an object';
    case 'null':
      return 'null';
    default:
      return `a ${value.kind}`;
  }
};
