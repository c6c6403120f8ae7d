/**
 * The search engines a JavaScript team would reach for instead, each configured as its documentation
 * recommends, all given exactly the pages and chunks Docent's loader produced (`loadDocsFolder`).
 * Every engine indexes the same chunk documents (page title, the chunk's headings, the chunk's text) and
 * returns chunk hits in rank order; the caller reduces them to pages as `scoreResults` does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { create, insertMultiple, search } from '@orama/orama';
import { stopwords as englishStopwords } from '@orama/stopwords/english';
import Database from 'better-sqlite3';
import { Charset, Document, Encoder } from 'flexsearch';
import EnglishPreset from 'flexsearch/lang/en';
import lunr from 'lunr';
import MiniSearch from 'minisearch';
import type { ParsedPage } from '../../src/ingest/types.ts';
import { repoRoot } from '../../src/testing/paths.ts';

/** One chunk as every competing engine indexes it. */
export interface ChunkDocument {
  /** Index into the chunk list. */
  id: number;
  page: string;
  title: string;
  /** The chunk's headings under the page title, joined with spaces. */
  headings: string;
  text: string;
}

export type ChunkSearcher = (query: string, limit: number) => number[] | Promise<number[]>;

export interface SearchEngine {
  name: string;
  /** npm package and version (or the SQLite version for FTS5). */
  version: string;
  /** The configuration used, in words, with where the documentation recommends it. */
  configuration: string;
  build(chunks: readonly ChunkDocument[]): Promise<{ search: ChunkSearcher; close?: () => void }>;
}

export function chunkDocuments(pages: readonly ParsedPage[]): ChunkDocument[] {
  const out: ChunkDocument[] = [];
  for (const page of pages) {
    for (const chunk of page.chunks) {
      out.push({
        id: out.length,
        page: page.path,
        title: page.title,
        headings: chunk.headings.join(' '),
        text: chunk.text,
      });
    }
  }
  return out;
}

export function packageVersion(name: string): string {
  const file = path.join(repoRoot, 'node_modules', name, 'package.json');
  return `${name}@${(JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version}`;
}

const miniSearch: SearchEngine = {
  name: 'MiniSearch',
  version: packageVersion('minisearch'),
  configuration:
    "`new MiniSearch({ fields: ['title', 'headings', 'text'], searchOptions: { boost: { title: 2 }, fuzzy: 0.2 } })`, `addAll(chunks)`, `search(question)` — the README's example of default search options (title boost 2, fuzzy 0.2); its default tokenizer and term processing (lowercase, no stemming, no stop words), terms OR-combined.",
  async build(chunks) {
    const index = new MiniSearch<ChunkDocument>({
      fields: ['title', 'headings', 'text'],
      searchOptions: { boost: { title: 2 }, fuzzy: 0.2 },
    });
    index.addAll(chunks as ChunkDocument[]);
    return {
      search: (query, limit) =>
        index
          .search(query)
          .slice(0, limit)
          .map((r) => r.id as number),
    };
  },
};

const orama: SearchEngine = {
  name: 'Orama',
  version: packageVersion('@orama/orama'),
  configuration:
    "`create({ schema: { title: 'string', headings: 'string', text: 'string' }, components: { tokenizer: { language: 'english', stemming: true, stopWords: englishStopwords } } })` with `@orama/stopwords/english`, `insertMultiple(chunks)`, `search({ term, properties: ['title', 'headings', 'text'], boost: { title: 2 }, limit })` — English stemming enabled as its stemming guide says (off by default), its recommended default English stop-word list (off by default), field boosting as in its boosting guide; BM25 with default relevance (k 1.2, b 0.75, d 0.5) and the default threshold (any term may match).",
  async build(chunks) {
    const db = create({
      schema: { chunk: 'number', title: 'string', headings: 'string', text: 'string' } as const,
      components: { tokenizer: { language: 'english', stemming: true, stopWords: englishStopwords } },
    });
    await insertMultiple(
      db,
      chunks.map((c) => ({ chunk: c.id, title: c.title, headings: c.headings, text: c.text })),
      1000,
    );
    return {
      search: async (query, limit) => {
        const result = await search(db, {
          term: query,
          properties: ['title', 'headings', 'text'],
          boost: { title: 2 },
          limit,
        });
        return result.hits.map((h) => h.document.chunk as number);
      },
    };
  },
};

const flexSearch: SearchEngine = {
  name: 'FlexSearch',
  version: packageVersion('flexsearch'),
  configuration:
    "`new Document({ tokenize: 'forward', encoder: new Encoder(Charset.LatinBalance).assign(EnglishPreset), document: { id: 'id', index: ['title', 'headings', 'text'] } })` with `flexsearch/lang/en`, `search({ query, limit, suggest: true, merge: true })` — the README's advice for better matching: a tokenizer (`forward`), a Latin encoder, the English language pack (stemmer and stop-word filter), and `suggest: true` so a result need not contain every query term; `merge: true` joins the per-field results by id.",
  async build(chunks) {
    const index = new Document({
      tokenize: 'forward',
      encoder: new Encoder(Charset.LatinBalance).assign(EnglishPreset),
      document: { id: 'id', index: ['title', 'headings', 'text'] },
    });
    for (const chunk of chunks) index.add({ ...chunk });
    return {
      search: (query, limit) =>
        (
          index.search({ query, limit, suggest: true, merge: true }) as unknown as { id: number | string }[]
        ).map((r) => Number(r.id)),
    };
  },
};

const lunrEngine: SearchEngine = {
  name: 'Lunr',
  version: packageVersion('lunr'),
  configuration:
    "`lunr(function () { this.ref('id'); this.field('title', { boost: 10 }); this.field('headings'); this.field('text'); chunks.forEach((c) => this.add(c)) })` — its guide's builder with a boosted title field and the default pipeline (trimmer, English stop-word filter, Porter stemmer); questions go through `index.query((q) => q.term(lunr.tokenizer(question)))` as its guide advises for user input, since `index.search()` would parse `:`, `^`, `~`, `+`, `-`, `*` in questions as query syntax.",
  async build(chunks) {
    const index = lunr(function () {
      this.ref('id');
      this.field('title', { boost: 10 });
      this.field('headings');
      this.field('text');
      for (const chunk of chunks) this.add(chunk);
    });
    return {
      search: (query, limit) =>
        index
          .query((q) => {
            q.term(lunr.tokenizer(query), {});
          })
          .slice(0, limit)
          .map((r) => Number(r.ref)),
    };
  },
};

/** FTS5 query from free text: every token quoted (no query syntax), OR-combined so any may match. */
export function fts5Query(text: string): string | null {
  const tokens = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (tokens.length === 0) return null;
  return [...new Set(tokens.map((t) => t.toLowerCase()))].map((t) => `"${t}"`).join(' OR ');
}

const sqliteFts5: SearchEngine = {
  name: 'SQLite FTS5',
  version: (() => {
    const db = new Database(':memory:');
    const version = db.prepare('select sqlite_version() as v').get() as { v: string };
    db.close();
    return `better-sqlite3@${packageVersion('better-sqlite3').split('@')[1]}, SQLite ${version.v}`;
  })(),
  configuration:
    "`CREATE VIRTUAL TABLE chunks USING fts5(title, headings, text, tokenize = 'porter unicode61')` in an in-memory database, one row per chunk in a transaction; `SELECT rowid FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks, 10.0, 5.0, 1.0) LIMIT ?` — the FTS5 documentation's Porter tokenizer over unicode61 and `bm25()` with column weights (title 10, headings 5, text 1, as in its weighted-bm25 example); the question becomes its tokens, each quoted, joined with OR (FTS5's implicit AND would leave most questions without a result).",
  async build(chunks) {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE chunks USING fts5(title, headings, text, tokenize = 'porter unicode61')");
    const insert = db.prepare('INSERT INTO chunks (rowid, title, headings, text) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (const c of chunks) insert.run(c.id + 1, c.title, c.headings, c.text);
    })();
    const select = db.prepare(
      'SELECT rowid AS id FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks, 10.0, 5.0, 1.0) LIMIT ?',
    );
    return {
      search: (query, limit) => {
        const match = fts5Query(query);
        if (match === null) return [];
        return (select.all(match, limit) as { id: number }[]).map((r) => r.id - 1);
      },
      close: () => db.close(),
    };
  },
};

export const SEARCH_ENGINES: readonly SearchEngine[] = [
  miniSearch,
  orama,
  flexSearch,
  lunrEngine,
  sqliteFts5,
];
