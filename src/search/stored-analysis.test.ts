import { describe, expect, it } from 'vitest';
import { ANALYZER_VERSION, type AnalyzedChunk, analyzeChunk } from './analyze.ts';
import { encodeIndex } from './index-codec.ts';
import { wordHash } from './index-tables.ts';
import { buildSearchIndex, DEFAULT_RANKING } from './search-index.ts';
import { StoredAnalysisReader } from './stored-analysis.ts';
import type { IndexableChunk } from './types.ts';

const texts = [
  {
    title: 'Installation',
    headings: ['Install', 'With npm'],
    text: 'Install the CLI with npm install -g docent.',
    language: 'en',
  },
  {
    title: 'Límites',
    headings: ['Errores 429'],
    text: 'Las solicitudes por encima del límite devuelven 429.',
    language: 'es',
  },
  { title: '快速开始', headings: [], text: '安装 CLI，然后运行 docent init。', language: 'zh' },
  { title: '', headings: [], text: '', language: null },
  {
    title: 'Streaming',
    headings: ['Server-sent events'],
    text: 'Stream tokens 😀 with server-sent events, retry on 0 and 10000000 bytes.',
    language: 'fr',
  },
];

const analyses = texts.map((t) =>
  analyzeChunk({ pageTitle: t.title, headings: t.headings, text: t.text, language: t.language }),
);

/** What the reader read, in the analysis's own shape. */
const readBack = (reader: StoredAnalysisReader, text: string): AnalyzedChunk => {
  const field = (from: number, to: number): [string[], number[]] => [
    Array.from({ length: to - from }, (_, k) =>
      text.slice(reader.termStarts[from + k], reader.termEnds[from + k]),
    ),
    Array.from(reader.termCounts.subarray(from, to)),
  ];
  const [t, h, b] = [0, 1, 2].map((f) =>
    field(f === 0 ? 0 : (reader.fieldEnds[f - 1] ?? 0), reader.fieldEnds[f] ?? 0),
  );
  return {
    v: ANALYZER_VERSION,
    s: reader.stemmer,
    l: [reader.lengths[0] ?? 0, reader.lengths[1] ?? 0, reader.lengths[2] ?? 0],
    t: t ?? [[], []],
    h: h ?? [[], []],
    b: b ?? [[], []],
    p: [
      Array.from(reader.pairHashes.subarray(0, reader.pairs)),
      Array.from(reader.pairCounts.subarray(0, reader.pairs)),
    ],
  };
};

describe('StoredAnalysisReader', () => {
  it('reads what the analyzer stores as JSON.parse would, each term with its word hash', () => {
    const reader = new StoredAnalysisReader(ANALYZER_VERSION);
    for (const analysis of analyses) {
      const text = JSON.stringify(analysis);
      expect(reader.read(text)).toBe(true);
      expect(readBack(reader, text)).toEqual(JSON.parse(text));
      for (let k = 0; k < reader.terms; k++)
        expect(reader.termHashes[k]).toBe(wordHash(text.slice(reader.termStarts[k], reader.termEnds[k])));
    }
  });

  it('declines any other text, which JSON.parse then reads', () => {
    const reader = new StoredAnalysisReader(ANALYZER_VERSION);
    const text = JSON.stringify(analyses[0]);
    const declined = [
      JSON.stringify(analyses[0], null, 1),
      text.replace(`{"v":${ANALYZER_VERSION},`, '{"v":0,'),
      text.replace('"s":"', '"s":"\\u0065'),
      text.replace('"t":[["', '"t":[["a\\"'),
      text.replace('"t":[["', '"t":[["a\u0001'),
      text.replace('"l":[', '"l":[-'),
      text.replace('"l":[', '"l":[0'),
      text.replace('"l":[', '"l":[1.5,'),
      text.replace('"l":[', '"l":[1e3,'),
      text.replace('"l":[', '"l":[1234567890123456,'),
      text.replace(/"p":\[\[\d+/, '"p":[[2147483648'),
      text.replace(/"b":\[\["[^"]*",/, '"b":[['),
      `${text} `,
      text.slice(0, -1),
      JSON.stringify({ s: analyses[0]?.s, ...analyses[0] }),
      'null',
      '',
    ];
    for (const other of declined) {
      expect(other).not.toBe(text);
      expect(reader.read(other)).toBe(false);
    }
    // Still reads the next analysis after declining one.
    expect(reader.read(text)).toBe(true);
  });
});

describe('an index built from stored analyses', () => {
  const chunks = (analyzed: (a: AnalyzedChunk, i: number) => unknown): IndexableChunk[] =>
    analyses.flatMap((a, i) =>
      [0, 1, 2].map((copy) => ({
        id: i * 10 + copy,
        pagePath: `page/${i}`,
        pageTitle: texts[i]?.title ?? '',
        headings: texts[i]?.headings ?? [],
        text: texts[i]?.text ?? '',
        versions: copy === 2 ? ['v2'] : [],
        languages: texts[i]?.language ? [texts[i]?.language ?? ''] : [],
        analyzed: analyzed(a, i),
      })),
    );

  it('is byte for byte the index built from the parsed analyses, whichever reads each chunk', () => {
    for (const params of [DEFAULT_RANKING, { ...DEFAULT_RANKING, feedbackDocs: 5 }]) {
      const parsed = encodeIndex(
        buildSearchIndex(
          chunks((a) => a),
          params,
        ),
      );
      expect(
        encodeIndex(
          buildSearchIndex(
            chunks((a) => JSON.stringify(a)),
            params,
          ),
        ),
      ).toEqual(parsed);
      // Some chunks' texts declined (spaced out), read by JSON.parse instead.
      const mixed = chunks((a, i) => JSON.stringify(a, null, i % 2));
      expect(encodeIndex(buildSearchIndex(mixed, params))).toEqual(parsed);
    }
  });
});
