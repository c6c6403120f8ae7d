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
 * set: read and rendered once per site and generation, and kept encoded, it becomes any address's text
 * by copying bytes (renderLlmsText), so a request naming a new Host costs milliseconds, not a read of
 * every page (bench:llms prints both).
 */
export interface LlmsTemplate {
  /** `# name` and the summary, always written. */
  head: Buffer;
  /** In order; the text ends before the first that does not fit. */
  units: LlmsUnit[];
  /** UTF-8 bytes of head and units. */
  bytes: number;
  generation: number;
  /** Pages the site has. */
  total: number;
  verb: 'listed' | 'included';
  /** Byte limit of the whole text. */
  maxBytes: number;
}

interface LlmsUnit {
  /** UTF-8 encoded; Docent's address goes between consecutive pieces. */
  pieces: Buffer[];
  /** Bytes of the pieces alone. */
  bytes: number;
  /** A page (counted in the text's pages), not a section heading. */
  page: boolean;
}

/** The template's text for one address: the same text a generation for that address would write. */
export function renderLlmsText(template: LlmsTemplate, docentUrl: string): LlmsText {
  const origin = Buffer.from(withoutSlash(docentUrl), 'utf8');
  const limit = template.maxBytes - CUT_NOTICE_BYTES;
  const parts = [template.head];
  let bytes = template.head.length;
  let pages = 0;
  for (const unit of template.units) {
    const size = unit.bytes + (unit.pieces.length - 1) * origin.length;
    if (bytes + size > limit) break;
    unit.pieces.forEach((piece, i) => {
      if (i > 0) parts.push(origin);
      parts.push(piece);
    });
    bytes += size;
    if (unit.page) pages++;
  }
  const cut = pages < template.total;
  if (cut) {
    const max = template.maxBytes.toLocaleString('en-US');
    const notice = `\nThis file was cut at its ${max}-byte limit: ${pages} of ${template.total} pages ${template.verb}.\n`;
    parts.push(Buffer.from(notice, 'utf8'));
  }
  const body = Buffer.concat(parts);
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
  readonly head: Buffer;
  readonly units: LlmsUnit[] = [];
  bytes: number;

  constructor(
    head: string,
    readonly limit: number,
  ) {
    this.head = Buffer.from(head, 'utf8');
    this.bytes = this.head.length;
  }

  /** False, and nothing taken, once no address could fit the unit. */
  add(texts: string[], page: boolean): boolean {
    const pieces = texts.map((text) => Buffer.from(text, 'utf8'));
    const bytes = pieces.reduce((sum, piece) => sum + piece.length, 0);
    if (this.bytes + bytes > this.limit) return false;
    this.units.push({ pieces, bytes, page });
    this.bytes += bytes;
    return true;
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
    const { head, units, bytes } = out;
    return { head, units, bytes, generation, total: pages.length, verb: 'listed', maxBytes };
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
        if (!out.add(['\nSource: ', `${path}\n\n${renderPageMarkdown(page)}`], true)) break batches;
      }
    }
    const { head, units, bytes } = out;
    return { head, units, bytes, generation, total: pages.length, verb: 'included', maxBytes };
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
    : `The ${name} documentation: ${pages.length} pages, each linked as Markdown.`;
  return `# ${name}\n\n> ${summary}\n`;
}

function shorten(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1).trimEnd()}…`;
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

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A title as link text: brackets and backslashes escaped, so it cannot end the link early. */
function linkText(title: string): string {
  return oneLine(title).replace(/[\\[\]]/g, (c) => `\\${c}`);
}
