import { assembleIndex } from './index-builder.ts';
import { PairLookup, StringTable, WordTable } from './index-tables.ts';
import type { LabelSet, RankingParams, SearchIndex } from './search-index.ts';

/**
 * The serialized search index: `DCIX`, the format version, the header's length, the header (JSON:
 * parameters, stemmers, label sets, and where each array lies), then the arrays, each 8-byte aligned;
 * page paths, titles and keys are string tables (UTF-8 bytes and offsets, index-tables.ts). Reading one
 * back makes views over its bytes: nothing is copied, rebuilt or parsed beyond the short header, so a
 * loaded index is ready as soon as its bytes are in memory.
 *
 * Bump `INDEX_FORMAT` whenever the layout or the meaning of a stored array changes (including the
 * ranking's build arithmetic): a stored index of another format is ignored and rebuilt.
 */
export const INDEX_FORMAT = 11;

const MAGIC = 0x58494344; // 'DCIX' read little-endian

type ArrayKind = 'u8' | 'u32' | 'i32' | 'f32';
type AnyArray = Uint8Array | Uint32Array | Int32Array | Float32Array;

interface Section {
  name: string;
  kind: ArrayKind;
  offset: number;
  length: number;
}

interface Header {
  params: RankingParams;
  stemmers: (string | null)[];
  labelSets: LabelSet[];
  sections: Section[];
}

const kindOf = (array: AnyArray): ArrayKind =>
  array instanceof Uint8Array
    ? 'u8'
    : array instanceof Uint32Array
      ? 'u32'
      : array instanceof Int32Array
        ? 'i32'
        : 'f32';

/** What a serialized index holds: an index without its per-query state. */
export type IndexParts = Omit<SearchIndex, 'chunkCount' | 'filterCache' | 'scratch'>;

const arrays = (index: IndexParts): Record<string, AnyArray> => ({
  ...prefixed('words.', index.words.arrays),
  'pairs.keys': index.pairs.keys,
  'pairs.values': index.pairs.values,
  chunkIds: index.chunkIds,
  chunkOrd: index.chunkOrd,
  chunkPath: index.chunkPath,
  chunkLabels: index.chunkLabels,
  chunkPage: index.chunkPage,
  pathPage: index.pathPage,
  pageParent: index.pageParent,
  ...prefixed('postings.', index.postings),
  ...prefixed('forward.', index.forward),
  ...prefixed('paths.', index.paths.arrays),
  ...prefixed('pathTitles.', index.pathTitles.arrays),
  ...prefixed('pagePaths.', index.pagePaths.arrays),
  ...prefixed('pageKeys.', index.pageByPath.arrays),
});

const prefixed = (prefix: string, record: object): Record<string, AnyArray> =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [`${prefix}${k}`, v as AnyArray]));

const align = (n: number): number => (n + 7) & ~7;

/**
 * Where every byte of the serialized index lies: `pieces` are the prefix (magic, format, header), each
 * array's bytes and each padding, with their offsets; an array named in `deferred` is laid out by its
 * kind and length but left out of `pieces` (its offset is in `deferred`), for a writer that fills it
 * later (index-builder.ts `finishInto`). Views over the index's own arrays: nothing is copied.
 */
export const indexLayout = (
  index: IndexParts,
  deferred: Record<string, { kind: ArrayKind; length: number }> = {},
): { pieces: [number, Uint8Array][]; deferred: Map<string, number>; total: number } => {
  const named = arrays(index);
  const sections: Section[] = [];
  const placed: [number, Uint8Array][] = [];
  const later = new Map<string, number>();
  let offset = 0;
  for (const [name, array] of Object.entries(named)) {
    const wanted = deferred[name];
    const kind = wanted?.kind ?? kindOf(array);
    const length = wanted?.length ?? array.length;
    const byteLength = length * (kind === 'u8' ? 1 : 4);
    sections.push({ name, kind, offset, length });
    if (wanted) later.set(name, offset);
    else placed.push([offset, new Uint8Array(array.buffer, array.byteOffset, array.byteLength)]);
    placed.push([offset + byteLength, new Uint8Array(align(byteLength) - byteLength)]);
    offset = align(offset + byteLength);
  }
  const header: Header = {
    params: index.params,
    stemmers: [...index.stemmers],
    labelSets: [...index.labelSets],
    sections,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = new Uint8Array(align(12 + json.length));
  const view = new DataView(prefix.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, INDEX_FORMAT, true);
  view.setUint32(8, json.length, true);
  prefix.set(json, 12);
  const start = prefix.byteLength;
  return {
    pieces: [[0, prefix], ...placed.map(([at, bytes]): [number, Uint8Array] => [start + at, bytes])],
    deferred: new Map([...later].map(([name, at]) => [name, start + at])),
    total: start + offset,
  };
};

/**
 * The serialized index as pieces, in order: the prefix (magic, format, header), then each array's
 * bytes and its padding. Views over the index's own arrays: nothing is copied, so a build's peak memory
 * is the index, not twice it (the storage writer copies one 2 MB part at a time).
 */
export const encodeIndexPieces = (index: IndexParts): Uint8Array[] =>
  indexLayout(index).pieces.map(([, bytes]) => bytes);

/** The pieces in one buffer. */
export const concatPieces = (pieces: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.byteLength;
  }
  return out;
};

/** The index as one buffer (tests; storage takes the pieces). */
export const encodeIndex = (index: SearchIndex): Uint8Array => concatPieces(encodeIndexPieces(index));

/** Why bytes are not an index this code can read. */
export class IndexFormatError extends Error {}

/** The format version of serialized bytes, or null when they are not a serialized index at all. */
export const formatOf = (bytes: Uint8Array): number | null => {
  if (bytes.byteLength < 12) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 12);
  return view.getUint32(0, true) === MAGIC ? view.getUint32(4, true) : null;
};

const headerOf = (bytes: Uint8Array): { header: Header; start: number } => {
  const format = formatOf(bytes);
  if (format !== INDEX_FORMAT)
    throw new IndexFormatError(`not a search index of format ${INDEX_FORMAT} (found ${format ?? 'none'})`);
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset + 8, 4).getUint32(0, true);
  if (12 + jsonLength > bytes.byteLength) throw new IndexFormatError('index header runs past its bytes');
  const json = Buffer.from(bytes.buffer, bytes.byteOffset + 12, jsonLength).toString();
  return { header: JSON.parse(json) as Header, start: align(12 + jsonLength) };
};

const typedView = (s: Section, bytes: Uint8Array): AnyArray => {
  const width = s.kind === 'u8' ? 1 : 4;
  if (s.length * width > bytes.byteLength)
    throw new IndexFormatError(`index section ${s.name} runs past its bytes`);
  if (bytes.byteOffset % width !== 0) throw new IndexFormatError(`index section ${s.name} is not aligned`);
  const { buffer, byteOffset } = bytes;
  return s.kind === 'u8'
    ? new Uint8Array(buffer, byteOffset, s.length)
    : s.kind === 'u32'
      ? new Uint32Array(buffer, byteOffset, s.length)
      : s.kind === 'i32'
        ? new Int32Array(buffer, byteOffset, s.length)
        : new Float32Array(buffer, byteOffset, s.length);
};

/**
 * Reads an index back as views over `bytes`, which must start 8-byte aligned in their buffer (a fresh
 * buffer, as the stored-index reader makes). Throws `IndexFormatError` for anything else.
 */
export const decodeIndex = (bytes: Uint8Array): SearchIndex => {
  if (bytes.byteOffset % 8 !== 0) throw new IndexFormatError('index bytes are not 8-byte aligned');
  const { header, start } = headerOf(bytes);
  const named = new Map<string, AnyArray>();
  for (const s of header.sections) {
    if (start + s.offset > bytes.byteLength)
      throw new IndexFormatError(`index section ${s.name} runs past its bytes`);
    named.set(s.name, typedView(s, bytes.subarray(start + s.offset)));
  }
  return assembleFrom(header, named);
};

/** Reads an index back from the pieces `encodeIndexPieces` made (a build's result), without copying. */
export const decodeIndexPieces = (pieces: readonly Uint8Array[]): SearchIndex => {
  const [prefix] = pieces;
  if (!prefix) throw new IndexFormatError('no index pieces');
  const { header } = headerOf(prefix);
  const named = new Map<string, AnyArray>();
  header.sections.forEach((s, i) => {
    const bytes = pieces[1 + 2 * i];
    if (!bytes) throw new IndexFormatError(`index section ${s.name} is missing`);
    named.set(s.name, typedView(s, bytes));
  });
  return assembleFrom(header, named);
};

const assembleFrom = (header: Header, named: ReadonlyMap<string, AnyArray>): SearchIndex => {
  const get = <T extends AnyArray>(name: string, type: new (n: number) => T): T => {
    const array = named.get(name);
    if (!(array instanceof type)) throw new IndexFormatError(`index section ${name} is missing`);
    return array;
  };
  const strings = (prefix: string): StringTable =>
    new StringTable({
      offsets: get(`${prefix}.offsets`, Uint32Array),
      bytes: get(`${prefix}.bytes`, Uint8Array),
      slots: get(`${prefix}.slots`, Int32Array),
      slotHashes: get(`${prefix}.slotHashes`, Uint32Array),
    });
  const pageByPath = strings('pageKeys');
  return assembleIndex({
    params: header.params,
    words: new WordTable({
      slots: get('words.slots', Int32Array),
      slotHashes: get('words.slotHashes', Uint32Array),
      offsets: get('words.offsets', Uint32Array),
      bytes: get('words.bytes', Uint8Array),
      fuzzyKeys: get('words.fuzzyKeys', Uint32Array),
      fuzzyIds: get('words.fuzzyIds', Uint32Array),
    }),
    pairs: new PairLookup(get('pairs.keys', Int32Array), get('pairs.values', Uint32Array)),
    stemmers: header.stemmers,
    chunkIds: get('chunkIds', Uint32Array),
    chunkOrd: get('chunkOrd', Uint32Array),
    chunkPath: get('chunkPath', Uint32Array),
    paths: strings('paths'),
    pathTitles: strings('pathTitles'),
    chunkLabels: get('chunkLabels', Uint32Array),
    labelSets: header.labelSets,
    pathPage: get('pathPage', Uint32Array),
    chunkPage: get('chunkPage', Uint32Array),
    pageCount: pageByPath.length,
    pagePaths: strings('pagePaths'),
    pageParent: get('pageParent', Uint32Array),
    pageByPath,
    postings: {
      offsets: get('postings.offsets', Uint32Array),
      docs: get('postings.docs', Uint32Array),
      weights: get('postings.weights', Float32Array),
      idf: get('postings.idf', Float32Array),
    },
    forward: {
      offsets: get('forward.offsets', Uint32Array),
      terms: get('forward.terms', Uint32Array),
      weights: get('forward.weights', Float32Array),
    },
  });
};
