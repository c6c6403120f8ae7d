/**
 * Shared pieces of the fuzz tests (fast-check): the run parameters (seed, replay path, scale), hostile
 * strings and JSON values, and valid JSON bodies mutated into hostile ones.
 *
 * Bodies are built as a JSON tree (`JsonNode`) rather than JS objects, so a body can hold what a JS
 * object cannot carry through `JSON.stringify`: a `__proto__` key as an own key, duplicate keys,
 * numbers like `1e400`, and nesting far deeper than a recursive serializer survives.
 */
import fc from 'fast-check';

// ---------------------------------------------------------------------------------------------------
// Run parameters

function integerFromEnv(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`${name} must be an integer, got "${value}"`);
  return parsed;
}

/**
 * One seed for every property of a run: `FUZZ_SEED` when set (to replay a failure), else a random one.
 * fast-check prints it with any counterexample; the fuzz files also log it first, so even a run that
 * ends in a crash says which seed it was.
 */
export const fuzzSeed: number = integerFromEnv('FUZZ_SEED') ?? (Math.random() * 0x7fffffff) | 0;

/** `FUZZ_SCALE` multiplies every property's number of runs (default 1; e.g. 10 for a long local run). */
const fuzzScale: number = (() => {
  const value = process.env.FUZZ_SCALE;
  if (value === undefined || value.trim() === '') return 1;
  const scale = Number(value);
  if (!(scale > 0)) throw new Error(`FUZZ_SCALE must be a positive number, got "${value}"`);
  return scale;
})();

/** fast-check's replay path of a counterexample (`FUZZ_PATH`, printed with it): runs only that case. */
const fuzzPath = process.env.FUZZ_PATH?.trim() || undefined;

export function fuzzRuns(base: number): number {
  return Math.max(1, Math.round(base * fuzzScale));
}

/** Parameters of one `fc.assert`: the run's seed, `numRuns` scaled, and the replay path if given. */
export function fuzzParameters<T>(numRuns: number): fc.Parameters<T> {
  return {
    seed: fuzzSeed,
    numRuns: fuzzRuns(numRuns),
    ...(fuzzPath ? { path: fuzzPath } : {}),
  };
}

/** How long shrinking a counterexample may go on, from the first failure (a hang costs a timeout a step). */
const SHRINK_BUDGET_MS = 60_000;

/**
 * A property's predicate that stops shrinking `budgetMs` after the first failure: later cases pass
 * without running, so fast-check ends and reports the smallest counterexample found so far, well before
 * the test's own timeout would cut it off without any report.
 */
export function withShrinkBudget<T>(
  predicate: (value: T) => Promise<void>,
  budgetMs = SHRINK_BUDGET_MS,
): (value: T) => Promise<void> {
  let firstFailure: number | undefined;
  return async (value) => {
    if (firstFailure !== undefined && performance.now() - firstFailure > budgetMs) return;
    try {
      await predicate(value);
    } catch (error) {
      firstFailure ??= performance.now();
      throw error;
    }
  };
}

// ---------------------------------------------------------------------------------------------------
// Hostile strings and numbers

/** Keys and values that break code using plain objects as maps. */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
] as const;

const NOTABLE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\udc00y\ud83d',
  '\u202e\u2066',
  '\ufeff',
  '\u200b\u200d',
  '\ud83d\ude42\ud83c\udff3\ufe0f\u200d\ud83c\udf08',
  'e\u0301\u0301\u0301',
  '\r\n\t\u000b\u000c',
  '\u2028\u2029',
  '\\u0000',
  '../../../etc/passwd',
  '%00%2e%2e%2f',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup, meant literally
  '${jndi:ldap://x}',
  '{{7*7}}',
  'javascript:alert(1)',
  'data:text/html,<b>x</b>',
  'https://example.com/',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '0x1F',
  ' 5 ',
  '5',
  'null',
  'undefined',
  'true',
  '[object Object]',
  ...PROTOTYPE_NAMES,
];

/** Short hostile strings: any code point (lone surrogates and NUL included), graphemes, notable ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NOTABLE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  {
    weight: 1,
    // Lone surrogates between ordinary characters: they survive JSON.stringify as `\udXXX` escapes.
    arbitrary: fc
      .array(fc.oneof(fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0x20, max: 0x7e })), {
        minLength: 1,
        maxLength: 8,
      })
      .map((codes) => String.fromCharCode(...codes)),
  },
);

/** Lengths just past the limits the schemas name (identifiers 512, texts 64,000, bodies 16 KiB / 1 MB). */
const HUGE_LENGTHS = [513, 2_001, 4_001, 16_385, 64_001, 200_000, 1_000_001] as const;

export const hugeString: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...HUGE_LENGTHS), fc.constantFrom('x', 'é', '\ud83d\ude42', ' ', '\u0000', '\ud800'))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)));

/** Numbers as JSON text, including ones JavaScript cannot hold exactly or at all. */
const ODD_NUMBERS = [
  '0',
  '-0',
  '-1',
  '1.5',
  '1e400',
  '-1e400',
  '1e-400',
  '1.7976931348623157e308',
  '5e-324',
  '9007199254740993',
  '123456789012345678901234567890',
  '50.0000000000000001',
  '2147483648',
  '5e0',
] as const;

// ---------------------------------------------------------------------------------------------------
// JSON as a tree

/**
 * A JSON value as written: objects keep their entries in order (duplicates and `__proto__` included),
 * `raw` is JSON text spliced in as is.
 */
export type JsonNode =
  | { kind: 'object'; entries: [string, JsonNode][] }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'raw'; text: string };

export function raw(text: string): JsonNode {
  return { kind: 'raw', text };
}

/** A plain value (no cycles) as a tree; `undefined` entries are left out as JSON.stringify would. */
export function toNode(value: unknown): JsonNode {
  if (Array.isArray(value)) return { kind: 'array', items: value.map((item) => toNode(item ?? null)) };
  if (value !== null && typeof value === 'object') {
    const entries: [string, JsonNode][] = [];
    for (const [key, child] of Object.entries(value))
      if (child !== undefined) entries.push([key, toNode(child)]);
    return { kind: 'object', entries };
  }
  return raw(JSON.stringify(value) ?? 'null');
}

export function serialize(node: JsonNode): string {
  switch (node.kind) {
    case 'raw':
      return node.text;
    case 'array':
      return `[${node.items.map(serialize).join(',')}]`;
    case 'object':
      return `{${node.entries.map(([key, value]) => `${JSON.stringify(key)}:${serialize(value)}`).join(',')}}`;
  }
}

/** `depth` nested arrays or objects around a leaf, as text (a recursive serializer would overflow). */
function deeplyNested(depth: number, shape: 'array' | 'object', leaf: string): JsonNode {
  return shape === 'array'
    ? raw(`${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`)
    : raw(`${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`);
}

const smallJson: fc.Arbitrary<JsonNode> = fc.jsonValue({ maxDepth: 3 }).map(toNode);

/** A JSON value where a body field goes: wrong types, hostile strings, odd numbers, deep nesting… */
export const hostileValue: fc.Arbitrary<JsonNode> = fc.oneof(
  { weight: 4, arbitrary: hostileString.map(toNode) },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_NUMBERS).map(raw) },
  { weight: 2, arbitrary: fc.constantFrom('null', 'true', 'false', '[]', '{}', '""', '[null]').map(raw) },
  { weight: 2, arbitrary: smallJson },
  { weight: 1, arbitrary: hugeString.map(toNode) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(64, 1_000, 20_000, 200_000),
        fc.constantFrom('array' as const, 'object' as const),
        fc.constantFrom('1', '"\\u0000"', '"constructor"', '{}'),
      )
      .map(([depth, shape, leaf]) => deeplyNested(depth, shape, leaf)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...PROTOTYPE_NAMES), smallJson)
      .map(([key, value]): JsonNode => ({ kind: 'object', entries: [[key, value]] })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '{"__proto__":{"polluted":true,"isAdmin":true}}',
        '{"constructor":{"prototype":{"polluted":true}}}',
        '{"toString":1,"valueOf":"x","hasOwnProperty":null}',
      )
      .map(raw),
  },
);

/** Object keys: hostile strings, prototype names and plain identifiers. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  hostileString,
  fc.stringMatching(/^[a-zA-Z_]{1,12}$/),
);

// ---------------------------------------------------------------------------------------------------
// Mutations of a valid body

type MutationOp = 'replace' | 'delete' | 'add' | 'wrap' | 'flip' | 'repeat';

export interface Mutation {
  /** Which node of the tree (taken modulo the number of nodes, in document order). */
  at: number;
  op: MutationOp;
  key: string;
  value: JsonNode;
  times: number;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom<MutationOp>(
    'replace',
    'replace',
    'replace',
    'delete',
    'add',
    'add',
    'wrap',
    'flip',
    'repeat',
  ),
  key: hostileKey,
  value: hostileValue,
  times: fc.constantFrom(2, 21, 201, 501, 2_000),
});

interface Slot {
  node: JsonNode;
  /** Replaces this node in its parent (or the root). */
  set(next: JsonNode): void;
  remove(): void;
}

function slotsOf(root: { node: JsonNode }): Slot[] {
  const slots: Slot[] = [];
  const visit = (node: JsonNode, set: (next: JsonNode) => void, remove: () => void): void => {
    slots.push({ node, set, remove });
    if (node.kind === 'object') {
      for (const entry of node.entries) {
        visit(
          entry[1],
          (next) => {
            entry[1] = next;
          },
          () => {
            const index = node.entries.indexOf(entry);
            if (index >= 0) node.entries.splice(index, 1);
          },
        );
      }
    } else if (node.kind === 'array') {
      node.items.forEach((item, i) => {
        visit(
          item,
          (next) => {
            node.items[i] = next;
          },
          () => {
            node.items.splice(node.items.indexOf(item), 1);
          },
        );
      });
    }
  };
  visit(
    root.node,
    (next) => {
      root.node = next;
    },
    () => {
      root.node = raw('{}');
    },
  );
  return slots;
}

/** Most bytes a repeated item may take in total: enough to cross every count limit, not memory. */
const MAX_REPEATED_BYTES = 1_200_000;

function applyMutation(root: { node: JsonNode }, m: Mutation): void {
  const slots = slotsOf(root);
  const slot = slots[m.at % slots.length];
  if (!slot) return;
  const { node } = slot;
  switch (m.op) {
    case 'replace':
      slot.set(m.value);
      return;
    case 'delete':
      slot.remove();
      return;
    case 'add':
      if (node.kind === 'object') node.entries.push([m.key, m.value]);
      else if (node.kind === 'array') node.items.push(m.value);
      else slot.set({ kind: 'object', entries: [[m.key, m.value]] });
      return;
    case 'wrap':
      slot.set({ kind: 'array', items: [node] });
      return;
    case 'flip':
      // An object where an array goes, and the other way round.
      if (node.kind === 'object') slot.set({ kind: 'array', items: node.entries.map(([, value]) => value) });
      else if (node.kind === 'array')
        slot.set({
          kind: 'object',
          entries: node.items.map((item, i): [string, JsonNode] => [String(i), item]),
        });
      else slot.set({ kind: 'array', items: [node, node] });
      return;
    case 'repeat': {
      const item = node.kind === 'array' ? node.items[0] : node;
      if (!item) return;
      // Written out at once: a later mutation of a shared item would otherwise be repeated too.
      const text = serialize(item);
      const times = Math.max(2, Math.min(m.times, Math.floor(MAX_REPEATED_BYTES / Math.max(1, text.length))));
      slot.set(raw(`[${Array.from({ length: times }, () => text).join(',')}]`));
      return;
    }
  }
}

/** A valid value with 1 to 3 mutations applied (to a fresh tree each time). */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<JsonNode> {
  return fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([value, mutations]) => {
    const root = { node: toNode(value) };
    for (const m of mutations) applyMutation(root, m);
    return root.node;
  });
}

// ---------------------------------------------------------------------------------------------------
// Whole bodies

/** A request body as sent, with a short printable form for counterexamples. */
export class FuzzBody {
  constructor(
    readonly payload: string | Uint8Array,
    readonly shape: string,
  ) {}

  get length(): number {
    return typeof this.payload === 'string' ? Buffer.byteLength(this.payload) : this.payload.length;
  }

  preview(max = 1_500): string {
    const text =
      typeof this.payload === 'string'
        ? this.payload
        : `bytes:${Buffer.from(this.payload.subarray(0, max)).toString('hex')}`;
    // Runs of a short unit (`[[[[…`, `{"a":{"a":…`, `xxxx…`) shown once with their count.
    const collapsed = text.replace(
      /(.{1,8}?)\1{15,}/gs,
      (run, unit: string) => `‹${unit}×${run.length / unit.length}›`,
    );
    const shown =
      collapsed.length > max ? `${collapsed.slice(0, max)}… (${this.length} bytes in all)` : collapsed;
    return `${this.shape} ${JSON.stringify(shown)}`;
  }

  [fc.toStringMethod](): string {
    return `FuzzBody(${this.preview()})`;
  }
}

const encoder = new TextEncoder();

function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Bytes that are not UTF-8: a lone continuation byte, an encoded surrogate (CESU-8), an overlong NUL. */
const INVALID_UTF8 = [[0xff], [0x80], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xf4, 0x90, 0x80, 0x80]];

/** Not JSON, or not quite: random bytes and text, cut-off and padded bodies, broken encodings. */
export function rawBody(valid: fc.Arbitrary<unknown>): fc.Arbitrary<FuzzBody> {
  const validText = valid.map((value) => JSON.stringify(value));
  return fc.oneof(
    fc.uint8Array({ maxLength: 256 }).map((bytes) => new FuzzBody(bytes, 'random bytes')),
    fc.string({ unit: 'binary', maxLength: 120 }).map((text) => new FuzzBody(text, 'random text')),
    fc
      .constantFrom(
        '',
        ' ',
        'null',
        'true',
        '0',
        '-1e400',
        '"text"',
        '[]',
        '[{}]',
        '{',
        '}',
        '{"a":1,}',
        "{'fp':'x'}",
        '{"a":NaN}',
        '{"a":Infinity}',
        '{"a":undefined}',
        '{/*c*/}',
        '{"a":"\\x41"}',
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        '{"\\u0000":1}',
        '{"__proto__":null}',
        '{"__proto__":[]}',
        '{"constructor":"x"}',
      )
      .map((text) => new FuzzBody(text, 'odd JSON')),
    fc
      .tuple(validText, fc.nat())
      .map(([text, cut]) => new FuzzBody(text.slice(0, cut % Math.max(1, text.length)), 'cut-off body')),
    fc
      .tuple(validText, fc.constantFrom('x', '}', ',', ' {}', '\u0000', '\n[]'))
      .map(([text, tail]) => new FuzzBody(text + tail, 'body with trailing bytes')),
    validText.map((text) => new FuzzBody(`\ufeff${text}`, 'body after a byte order mark')),
    validText.map(
      (text) =>
        new FuzzBody(concatBytes(new Uint8Array([0xff, 0xfe]), Buffer.from(text, 'utf16le')), 'UTF-16 body'),
    ),
    fc.tuple(validText, fc.nat(), fc.constantFrom(...INVALID_UTF8)).map(([text, at, bad]) => {
      // Inside a string value where there is one, so the JSON still parses.
      const quote = text.indexOf('"', at % Math.max(1, text.length));
      const cut = quote >= 0 ? quote + 1 : 0;
      const bytes = concatBytes(
        encoder.encode(text.slice(0, cut)),
        new Uint8Array(bad),
        encoder.encode(text.slice(cut)),
      );
      return new FuzzBody(bytes, 'body with invalid UTF-8');
    }),
  );
}

/** Longest body text sent: past every route's limit (1 MB at most), short of costing real time to send. */
const MAX_BODY_CHARS = 1_500_000;

function capped(text: string, shape: string): FuzzBody {
  return text.length > MAX_BODY_CHARS
    ? new FuzzBody(text.slice(0, MAX_BODY_CHARS), `${shape}, cut to ${MAX_BODY_CHARS} characters`)
    : new FuzzBody(text, shape);
}

/**
 * Bodies for one endpoint: valid ones, valid ones with mutated fields, hostile values in place of the
 * whole body, and raw non-JSON bytes.
 */
export function fuzzBodies(valid: fc.Arbitrary<unknown>): fc.Arbitrary<FuzzBody> {
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((value) => new FuzzBody(JSON.stringify(value), 'valid')) },
    { weight: 9, arbitrary: mutated(valid).map((node) => capped(serialize(node), 'mutated')) },
    { weight: 1, arbitrary: hostileValue.map((node) => capped(serialize(node), 'hostile value')) },
    { weight: 3, arbitrary: rawBody(valid) },
  );
}
