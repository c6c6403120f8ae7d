/**
 * The sources of one answer: the one record (`AnswerSource`) and the views each consumer derives from
 * it. Citation numbers are assigned here and nowhere else: the first retrieval's chunks are 1…n in rank
 * order, and chunks a model finds with its own `search` calls are numbered after them (a chunk already
 * known keeps its number), so `[n]` in an answer always names one source.
 */
import type { SearchResult } from '../search/site-search.ts';
import type { RetrievedSource } from './builtin-answerer.ts';

/** One citable chunk: what the answerer reads, the stream cites, the thread stores and the tool shows. */
export interface AnswerSource extends RetrievedSource {
  /** The page's path in the site (`guides/cli`). */
  path: string;
}

/** The stream's view: the citation id, the link, and a title naming the section (`Page › Heading`). */
export interface CitableSource {
  id: string;
  url: string;
  title: string;
}

/** The thread's view: what a stored answer cites. */
export interface StoredSource {
  id: string;
  url: string;
  title: string;
  path: string;
}

/** One page of a search step as the stream shows it (the hosted service's `search` tool result). */
export interface SearchResultItem {
  path: string;
  url: string;
  title: string;
}

export function citableView(source: AnswerSource): CitableSource {
  return { id: source.id, url: source.url, title: sectionTitle(source) };
}

export function storedView(source: AnswerSource): StoredSource {
  return { id: source.id, url: source.url, title: source.pageTitle, path: source.path };
}

/** `Page › H2 › H3`: how a model and a reader are shown which section a source is. */
export function sectionTitle(source: Pick<AnswerSource, 'pageTitle' | 'headings'>): string {
  return source.headings.length === 0 ? source.pageTitle : [source.pageTitle, ...source.headings].join(' › ');
}

/** The pages of a search step: one entry per URL, in rank order. */
export function searchItems(sources: readonly AnswerSource[]): SearchResultItem[] {
  const seen = new Set<string>();
  const items: SearchResultItem[] = [];
  for (const s of sources) {
    if (seen.has(s.url)) continue;
    seen.add(s.url);
    items.push({ path: s.path, url: s.url, title: s.pageTitle });
  }
  return items;
}

/** Every source an answer may cite, by citation number. */
export class SourceList {
  readonly all: AnswerSource[] = [];
  private readonly byUrl = new Map<string, AnswerSource>();
  private readonly byId = new Map<string, AnswerSource>();

  /** `link` gives a search result the URL the reader gets (source-links.ts); its own URL by default. */
  constructor(private readonly link: (result: SearchResult) => string = (result) => result.url) {}

  /**
   * The first retrieval, numbered 1…n, one number per chunk (two chunks of one long section share a
   * URL but not their text, and the answerer reads both).
   */
  static of(results: readonly SearchResult[], link?: (result: SearchResult) => string): SourceList {
    const list = new SourceList(link);
    for (const r of results) list.push(r, list.link(r));
    return list;
  }

  /** The source for a later search's result: the known one with the same URL, or a new number. */
  add(result: SearchResult): AnswerSource {
    const url = this.link(result);
    return this.byUrl.get(url) ?? this.push(result, url);
  }

  private push(result: SearchResult, url: string): AnswerSource {
    const source: AnswerSource = {
      id: String(this.all.length + 1),
      pageTitle: result.title,
      headings: result.breadcrumbs.slice(1),
      url,
      path: result.pagePath,
      text: result.text,
      score: result.score,
      coverage: result.coverage,
      searchedVersion: result.searchedVersion,
    };
    this.all.push(source);
    if (!this.byUrl.has(url)) this.byUrl.set(url, source);
    this.byId.set(source.id, source);
    return source;
  }

  get(id: string): AnswerSource | undefined {
    return this.byId.get(id);
  }

  /** The sources with these ids, in the order given (unknown ids skipped). */
  pick(ids: readonly string[]): AnswerSource[] {
    const out: AnswerSource[] = [];
    for (const id of ids) {
      const source = this.byId.get(id);
      if (source !== undefined) out.push(source);
    }
    return out;
  }
}
