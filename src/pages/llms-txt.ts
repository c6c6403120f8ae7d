import type { Kysely } from 'kysely';
import { readSnapshot, type Storage } from '../storage/database.ts';
import type { Database } from '../storage/schema.ts';
import { renderPageMarkdown } from './page-markdown.ts';
import { type ListedPage, listPages, sectionsOf } from './site-navigation.ts';
import { readStoredPages } from './stored-page.ts';

export { OTHER_PAGES } from './site-navigation.ts';

/** Largest llms-full.txt: pages are added while they fit, then a closing line says it was cut. */
export const MAX_LLMS_FULL_BYTES = 20 * 1024 * 1024;
/** Largest llms.txt (about 10,000 pages at typical title and description lengths). */
export const MAX_LLMS_TXT_BYTES = 2 * 1024 * 1024;
/** Kept free under either limit for the closing line, so the whole file stays within it. */
const CUT_NOTICE_BYTES = 256;
/** Longest site name and summary in the header, in characters. */
const MAX_HEADER_CHARS = 500;
/** Pages whose Markdown is read per query for llms-full.txt. */
const PAGE_BATCH = 100;

export interface LlmsSite {
  id: string;
  domain: string;
  name: string;
}

export interface LlmsText {
  text: string;
  /** The site's index generation the text was read at (the same snapshot). */
  generation: number;
  /** Pages in the text, and pages the site has: fewer when the text was cut at its limit. */
  pages: number;
  total: number;
  cut: boolean;
}

export interface LlmsOptions {
  /** Byte limit of the whole text (tests pass small ones). */
  maxBytes?: number;
}

/** `{docentUrl}/sites/{domain}/llms.txt`. */
export function llmsTxtUrl(docentUrl: string, domain: string): string {
  return `${siteBase(docentUrl, domain)}/llms.txt`;
}

/** `{docentUrl}/sites/{domain}/pages/{path}.md`, each path segment percent-encoded. */
export function pageMarkdownUrl(docentUrl: string, domain: string, path: string): string {
  // Parentheses too: an unbalanced one would end a Markdown link's URL early.
  const encoded = path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29')))
    .join('/');
  return `${siteBase(docentUrl, domain)}/pages/${encoded}.md`;
}

/**
 * llms.txt (llmstxt.org): `# name`, a `> ` summary, then one `## group` section per navigation group
 * in navigation order, each page a `- [title](url): description` line linking its Markdown mirror.
 * Undefined when the site does not exist.
 */
export async function generateLlmsTxt(
  storage: Storage,
  site: LlmsSite,
  docentUrl: string,
  options: LlmsOptions = {},
): Promise<LlmsText | undefined> {
  // Generation, page list and pages from one snapshot, so the text is one ingestion's, never a mix.
  return readSnapshot(storage, async (db) => {
    const generation = await generationIn(db, site.id);
    if (generation === undefined) return undefined;
    const pages = await listPages(db, site.id);
    const out = new BoundedText((options.maxBytes ?? MAX_LLMS_TXT_BYTES) - CUT_NOTICE_BYTES);
    out.force(header(site, pages));
    let listed = 0;
    sections: for (const section of sectionsOf(pages)) {
      if (!out.add(`\n## ${oneLine(section.name)}\n\n`)) break;
      for (const page of section.pages) {
        const description = page.description ? `: ${oneLine(page.description)}` : '';
        const url = pageMarkdownUrl(docentUrl, site.domain, page.path);
        if (!out.add(`- [${linkText(page.title)}](${url})${description}\n`)) break sections;
        listed++;
      }
    }
    return finish(out, generation, listed, pages.length, 'listed');
  });
}

/**
 * llms-full.txt: the same `# name` and summary, then every page's Markdown in llms.txt's order, each
 * after a `Source: {url}` line naming its Markdown mirror. Read in batches from one snapshot, and never
 * more than the byte limit: at it, pages stop and a closing line says so.
 */
export async function generateLlmsFullTxt(
  storage: Storage,
  site: LlmsSite,
  docentUrl: string,
  options: LlmsOptions = {},
): Promise<LlmsText | undefined> {
  // Generation, page list and pages from one snapshot, so the text is one ingestion's, never a mix.
  return readSnapshot(storage, async (db) => {
    const generation = await generationIn(db, site.id);
    if (generation === undefined) return undefined;
    const pages = await listPages(db, site.id);
    const ordered = sectionsOf(pages).flatMap((section) => section.pages);
    const out = new BoundedText((options.maxBytes ?? MAX_LLMS_FULL_BYTES) - CUT_NOTICE_BYTES);
    out.force(header(site, pages));
    let included = 0;
    batches: for (let i = 0; i < ordered.length; i += PAGE_BATCH) {
      const batch = ordered.slice(i, i + PAGE_BATCH);
      const stored = await readStoredPages(
        db,
        site.id,
        batch.map((page) => page.path),
      );
      for (const listedPage of batch) {
        const page = stored.get(listedPage.path);
        if (!page) continue;
        const url = pageMarkdownUrl(docentUrl, site.domain, page.path);
        if (!out.add(`\nSource: ${url}\n\n${renderPageMarkdown(page)}`)) break batches;
        included++;
      }
    }
    return finish(out, generation, included, pages.length, 'included');
  });
}

/**
 * `# name` and the `> ` summary: the home page's description (the navigation's first page, or
 * `index`/`README` in a plain folder), else a line saying what the file is. Both shortened, so the
 * header always fits under the limit.
 */
function header(site: LlmsSite, pages: ListedPage[]): string {
  let home: ListedPage | undefined;
  for (const page of pages) {
    if (page.navOrder !== null && (home?.navOrder == null || page.navOrder < home.navOrder)) home = page;
  }
  home ??= pages.find((p) => /^(index|readme)$/i.test(p.path));
  const name = shorten(oneLine(site.name), MAX_HEADER_CHARS);
  const summary = home?.description
    ? shorten(oneLine(home.description), MAX_HEADER_CHARS)
    : `The ${name} documentation: ${pages.length} pages, each linked as Markdown.`;
  return `# ${name}\n\n> ${summary}\n`;
}

function shorten(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1).trimEnd()}…`;
}

function finish(out: BoundedText, generation: number, pages: number, total: number, verb: string): LlmsText {
  const cut = pages < total;
  if (cut) {
    const limit = (out.limit + CUT_NOTICE_BYTES).toLocaleString('en-US');
    out.force(`\nThis file was cut at its ${limit}-byte limit: ${pages} of ${total} pages ${verb}.\n`);
  }
  return { text: out.toString(), generation, pages, total, cut };
}

async function generationIn(db: Kysely<Database>, siteId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('sites')
    .select('index_generation')
    .where('id', '=', siteId)
    .executeTakeFirst();
  return row?.index_generation;
}

function siteBase(docentUrl: string, domain: string): string {
  return `${docentUrl.replace(/\/+$/, '')}/sites/${encodeURIComponent(domain)}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A title as link text: brackets and backslashes escaped, so it cannot end the link early. */
function linkText(title: string): string {
  return oneLine(title).replace(/[\\[\]]/g, (c) => `\\${c}`);
}

/** Text built from parts that stops taking them at a byte limit instead of growing without bound. */
class BoundedText {
  readonly #parts: string[] = [];
  #bytes = 0;

  constructor(readonly limit: number) {}

  /** Appends `part` when it fits under the limit; false, and nothing appended, when it does not. */
  add(part: string): boolean {
    const bytes = Buffer.byteLength(part, 'utf8');
    if (this.#bytes + bytes > this.limit) return false;
    this.#parts.push(part);
    this.#bytes += bytes;
    return true;
  }

  /** Appends `part` whatever the limit (the closing line, which the limit keeps room for). */
  force(part: string): void {
    this.#parts.push(part);
    this.#bytes += Buffer.byteLength(part, 'utf8');
  }

  toString(): string {
    return this.#parts.join('');
  }
}
