import type { Kysely } from 'kysely';
import { readSnapshot, type Storage } from '../storage/database.ts';
import type { Database } from '../storage/schema.ts';
import { inertLine, inertState } from './inert-markdown.ts';
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
  /** The text, UTF-8 encoded: what the route sends. */
  body: Buffer<ArrayBuffer>;
  /** The text as a string (decoded from body on each read). */
  readonly text: string;
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
  return `${withoutSlash(docentUrl)}${siteBase(domain)}/llms.txt`;
}

/** `{docentUrl}/sites/{domain}/pages/{path}.md`, each path segment percent-encoded. */
export function pageMarkdownUrl(docentUrl: string, domain: string, path: string): string {
  return `${withoutSlash(docentUrl)}${pageMarkdownPath(domain, path)}`;
}

/** pageMarkdownUrl without Docent's address: `/sites/{domain}/pages/{path}.md`. */
function pageMarkdownPath(domain: string, path: string): string {
  // Parentheses too: an unbalanced one would end a Markdown link's URL early.
  const encoded = path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29')))
    .join('/');
  return `${siteBase(domain)}/pages/${encoded}.md`;
}

/**
 * A generated file without Docent's address, which comes from each request when no public URL is
 * set: read and rendered once per site and generation, and kept encoded in one buffer, it becomes any
 * address's text by copying bytes (renderLlmsText), so a request naming a new Host costs milliseconds,
 * not a read of every page (bench:llms prints both).
 */
export interface LlmsTemplate {
  /** `# name` and the summary, always written, then every unit's pieces, UTF-8 encoded. */
  data: Buffer;
  /** Where the head ends in `data`. */
  headBytes: number;
  /** End offset in `data` of each piece; Docent's address goes between consecutive pieces of a unit. */
  pieceEnds: Uint32Array;
  /** Index of each unit's first piece, and one past the last unit's last. */
  unitPieces: Uint32Array;
  /** Units that are pages (counted in the text's pages), not section headings. */
  unitIsPage: Uint8Array;
  generation: number;
  /** Pages the site has. */
  total: number;
  verb: 'listed' | 'included';
  /** Byte limit of the whole text. */
  maxBytes: number;
}

/**
 * The template's text for one address: the same text a generation for that address would write, units
 * in order until the first that does not fit.
 */
export function renderLlmsText(template: LlmsTemplate, docentUrl: string): LlmsText {
  const { data, headBytes, pieceEnds, unitPieces, unitIsPage } = template;
  const origin = Buffer.from(withoutSlash(docentUrl), 'utf8');
  const limit = template.maxBytes - CUT_NOTICE_BYTES;
  let bytes = headBytes;
  let units = 0;
  let pages = 0;
  for (; units < unitIsPage.length; units++) {
    const first = unitPieces[units] as number;
    const end = unitPieces[units + 1] as number;
    const pieceBytes =
      (pieceEnds[end - 1] as number) - (first === 0 ? headBytes : (pieceEnds[first - 1] as number));
    const size = pieceBytes + (end - first - 1) * origin.length;
    if (bytes + size > limit) break;
    bytes += size;
    pages += unitIsPage[units] as number;
  }
  const cut = pages < template.total;
  const notice = cut
    ? Buffer.from(
        `\nThis file was cut at its ${template.maxBytes.toLocaleString('en-US')}-byte limit: ${pages} of ${template.total} pages ${template.verb}.\n`,
        'utf8',
      )
    : undefined;
  const body = Buffer.allocUnsafe(bytes + (notice?.length ?? 0));
  let at = data.copy(body, 0, 0, headBytes);
  let from = headBytes;
  for (let unit = 0; unit < units; unit++) {
    for (let piece = unitPieces[unit] as number; piece < (unitPieces[unit + 1] as number); piece++) {
      if (piece !== unitPieces[unit]) at += origin.copy(body, at);
      at += data.copy(body, at, from, pieceEnds[piece]);
      from = pieceEnds[piece] as number;
    }
  }
  notice?.copy(body, at);
  return {
    body,
    get text() {
      return body.toString('utf8');
    },
    generation: template.generation,
    pages,
    total: template.total,
    cut,
  };
}

/** Units are taken while their pieces alone fit: no address, however short, fits more. */
class TemplateBuilder {
  readonly #chunks: Buffer[] = [];
  readonly #pieceEnds: number[] = [];
  readonly #unitPieces: number[] = [0];
  readonly #unitIsPage: number[] = [];
  readonly #headBytes: number;
  #bytes: number;

  constructor(
    head: string,
    readonly limit: number,
  ) {
    const encoded = Buffer.from(head, 'utf8');
    this.#chunks.push(encoded);
    this.#headBytes = this.#bytes = encoded.length;
  }

  /** False, and nothing taken, once no address could fit the unit. */
  add(texts: string[], page: boolean): boolean {
    const pieces = texts.map((text) => Buffer.from(text, 'utf8'));
    const bytes = pieces.reduce((sum, piece) => sum + piece.length, 0);
    if (this.#bytes + bytes > this.limit) return false;
    for (const piece of pieces) {
      this.#chunks.push(piece);
      this.#bytes += piece.length;
      this.#pieceEnds.push(this.#bytes);
    }
    this.#unitPieces.push(this.#pieceEnds.length);
    this.#unitIsPage.push(page ? 1 : 0);
    return true;
  }

  template(fields: Pick<LlmsTemplate, 'generation' | 'total' | 'verb' | 'maxBytes'>): LlmsTemplate {
    return {
      data: Buffer.concat(this.#chunks, this.#bytes),
      headBytes: this.#headBytes,
      pieceEnds: Uint32Array.from(this.#pieceEnds),
      unitPieces: Uint32Array.from(this.#unitPieces),
      unitIsPage: Uint8Array.from(this.#unitIsPage),
      ...fields,
    };
  }
}

/**
 * llms.txt (llmstxt.org): `# name`, a `> ` summary, then one `## group` section per navigation group
 * in navigation order, each page a `- [title](url): description` line linking its Markdown mirror.
 * Undefined when the site does not exist.
 */
export async function readLlmsTxtTemplate(
  storage: Storage,
  site: LlmsSite,
  options: LlmsOptions = {},
): Promise<LlmsTemplate | undefined> {
  const maxBytes = options.maxBytes ?? MAX_LLMS_TXT_BYTES;
  // Generation, page list and pages from one snapshot, so the text is one ingestion's, never a mix.
  return readSnapshot(storage, async (db) => {
    const generation = await generationIn(db, site.id);
    if (generation === undefined) return undefined;
    const pages = await listPages(db, site.id);
    const out = new TemplateBuilder(header(site, pages), maxBytes - CUT_NOTICE_BYTES);
    sections: for (const section of sectionsOf(pages)) {
      if (!out.add([`\n## ${oneLine(section.name)}\n\n`], false)) break;
      for (const page of section.pages) {
        const description = page.description ? `: ${oneLine(page.description)}` : '';
        const path = pageMarkdownPath(site.domain, page.path);
        if (!out.add([`- [${linkText(page.title)}](`, `${path})${description}\n`], true)) break sections;
      }
    }
    return out.template({ generation, total: pages.length, verb: 'listed', maxBytes });
  });
}

/**
 * llms-full.txt: the same `# name` and summary, then every page's Markdown in llms.txt's order, each
 * after a `Source: {url}` line naming its Markdown mirror. Read in batches from one snapshot, and never
 * more than the byte limit: at it, pages stop and a closing line says so.
 */
export async function readLlmsFullTemplate(
  storage: Storage,
  site: LlmsSite,
  options: LlmsOptions = {},
): Promise<LlmsTemplate | undefined> {
  const maxBytes = options.maxBytes ?? MAX_LLMS_FULL_BYTES;
  // Generation, page list and pages from one snapshot, so the text is one ingestion's, never a mix.
  return readSnapshot(storage, async (db) => {
    const generation = await generationIn(db, site.id);
    if (generation === undefined) return undefined;
    const pages = await listPages(db, site.id);
    const ordered = sectionsOf(pages).flatMap((section) => section.pages);
    const out = new TemplateBuilder(header(site, pages), maxBytes - CUT_NOTICE_BYTES);
    // One text: a fence a page leaves open goes on into the next page as a reader reads it.
    const inert = inertState();
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
        const path = pageMarkdownPath(site.domain, page.path);
        if (!out.add(['\nSource: ', `${path}\n\n${renderPageMarkdown(page, inert)}`], true)) break batches;
      }
    }
    return out.template({ generation, total: pages.length, verb: 'included', maxBytes });
  });
}

/** llms.txt for one address (tests and the benchmark; the route keeps the template). */
export async function generateLlmsTxt(
  storage: Storage,
  site: LlmsSite,
  docentUrl: string,
  options: LlmsOptions = {},
): Promise<LlmsText | undefined> {
  const template = await readLlmsTxtTemplate(storage, site, options);
  return template && renderLlmsText(template, docentUrl);
}

/** llms-full.txt for one address (tests and the benchmark; the route keeps the template). */
export async function generateLlmsFullTxt(
  storage: Storage,
  site: LlmsSite,
  docentUrl: string,
  options: LlmsOptions = {},
): Promise<LlmsText | undefined> {
  const template = await readLlmsFullTemplate(storage, site, options);
  return template && renderLlmsText(template, docentUrl);
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
    : `The ${name} documentation: ${pages.length} ${pages.length === 1 ? 'page' : 'pages'}, each linked as Markdown.`;
  return `# ${name}\n\n> ${summary}\n`;
}

function shorten(text: string, chars: number): string {
  // Not inside a surrogate pair (an emoji, 𠮷): half a character is written to the file as "�".
  if (text.length <= chars) return text;
  const high = text.charCodeAt(chars - 2);
  const cut = high >= 0xd800 && high <= 0xdbff ? chars - 2 : chars - 1;
  return `${text.slice(0, cut).trimEnd()}…`;
}

async function generationIn(db: Kysely<Database>, siteId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('sites')
    .select('index_generation')
    .where('id', '=', siteId)
    .executeTakeFirst();
  return row?.index_generation;
}

function withoutSlash(docentUrl: string): string {
  return docentUrl.replace(/\/+$/, '');
}

function siteBase(domain: string): string {
  return `/sites/${encodeURIComponent(domain)}`;
}

/** Docs text on one line, where nothing in it links, loads or is HTML (inert-markdown.ts). */
function oneLine(text: string): string {
  return inertLine(text.replace(/\s+/g, ' ').trim());
}

/**
 * A title as link text: brackets and backslashes escaped, so it cannot end the link early, and backticks,
 * so that no code span opened in it goes on into the description after the link; then made inert.
 */
function linkText(title: string): string {
  return inertLine(
    title
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[\\[\]`]/g, (c) => `\\${c}`),
  );
}
