/**
 * The data of `npm run bench:scale`, all from the shared corpora (../shared/corpora):
 * - the large site: the five corpora copied N times into one plain folder (copy<i>/<corpus>/…, no
 *   docs.json at its top, so the folder is read as plain Markdown), the last copy partial when a page
 *   count is asked for rather than a number of copies;
 * - the many-sites set: each site a random subset (100–500 by default) of one corpus's pages under a
 *   folder named after the site (`<domain>/…`), so every stored page path starts with its own site's
 *   domain and a citation from the wrong site's index is visible; its question is the title of one of
 *   its pages. Seeded, so every run (and both trees) get the same sites and questions.
 */
import fs from 'node:fs';
import path from 'node:path';

export const BIG_CORPORA = [
  'mintlify-docs',
  'mcp-docs',
  'crewai-docs',
  'unstructured-docs',
  'ollama',
] as const;

const isPage = (file: string): boolean => /\.mdx?$/i.test(file);

/** Every file of a corpus, relative paths, sorted (code-unit order). */
export function corpusFiles(corpusDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const item of fs.readdirSync(dir, { withFileTypes: true })) {
      const relPath = rel === '' ? item.name : `${rel}/${item.name}`;
      if (item.isDirectory()) walk(path.join(dir, item.name), relPath);
      else if (item.isFile()) out.push(relPath);
    }
  };
  walk(corpusDir, '');
  return out.sort();
}

export interface BigFolder {
  dir: string;
  /** Markdown/MDX files written (what a plain folder's ingestion takes as pages). */
  pageFiles: number;
  /** Bytes of those files. */
  markdownBytes: number;
  /** Bytes of every file written (specs and other files of the corpora included). */
  totalBytes: number;
  /** Whole copies, and the pages of the partial last copy (0: none). */
  copies: number;
  partialPages: number;
}

export interface BigFolderSpec {
  /** Whole copies of the five corpora. */
  copies?: number;
  /** Or: this many page files exactly (whole copies, then the first pages of one more, in path order). */
  pages?: number;
}

/** Pages (Markdown/MDX files) in one copy of the five corpora. */
export function pagesPerCopy(corporaDir: string): number {
  return BIG_CORPORA.reduce((n, c) => n + corpusFiles(path.join(corporaDir, c)).filter(isPage).length, 0);
}

/** Writes the large site's folder into `dir` (which must not exist yet). */
export function writeBigFolder(corporaDir: string, dir: string, spec: BigFolderSpec): BigFolder {
  const perCopy = pagesPerCopy(corporaDir);
  const wanted = spec.pages ?? (spec.copies ?? 8) * perCopy;
  const copies = Math.floor(wanted / perCopy);
  const partialPages = wanted - copies * perCopy;
  fs.mkdirSync(dir, { recursive: true });
  let pageFiles = 0;
  let markdownBytes = 0;
  let totalBytes = 0;
  const copyFile = (from: string, to: string) => {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
    fs.chmodSync(to, 0o644);
    const size = fs.statSync(to).size;
    totalBytes += size;
    if (isPage(to)) {
      pageFiles += 1;
      markdownBytes += size;
    }
  };
  for (let i = 0; i < copies; i++) {
    for (const corpus of BIG_CORPORA) {
      const from = path.join(corporaDir, corpus);
      for (const rel of corpusFiles(from))
        copyFile(path.join(from, rel), path.join(dir, `copy${i}`, corpus, rel));
    }
  }
  let left = partialPages;
  for (const corpus of BIG_CORPORA) {
    const from = path.join(corporaDir, corpus);
    for (const rel of corpusFiles(from).filter(isPage)) {
      if (left <= 0) break;
      copyFile(path.join(from, rel), path.join(dir, `copy${copies}`, corpus, rel));
      left -= 1;
    }
  }
  return { dir, pageFiles, markdownBytes, totalBytes, copies, partialPages };
}

/** Small deterministic PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** A page's title: front matter `title:`, else its first `# ` heading; null without either. */
export function pageTitle(file: string): string | null {
  const text = fs.readFileSync(file, 'utf8').slice(0, 8000);
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1];
  const fromFront = front ? /^title:\s*(.+)$/m.exec(front)?.[1] : undefined;
  const heading = /^#\s+(.+)$/m.exec(text)?.[1];
  const raw = (fromFront ?? heading ?? '').trim().replace(/^["']|["']$/g, '');
  const title = raw.replace(/[`*_<>{}]/g, '').trim();
  return title.length >= 3 ? title : null;
}

export interface PlannedSite {
  domain: string;
  corpus: string;
  /** Page files, relative to the corpus; written under `<domain>/` in the site's folder. */
  files: string[];
  /** The question asked of this site: the title of `questionFile`. */
  question: string;
  /** Stored path of the page the question was taken from (`<domain>/<file without extension>`). */
  questionPage: string;
}

export interface SitePlanSpec {
  sites: number;
  minPages: number;
  maxPages: number;
  seed: number;
}

export const siteDomain = (i: number): string => `site-${String(i).padStart(4, '0')}`;

/**
 * The many-sites set: site i takes a random number of pages in [minPages, maxPages] from one corpus
 * that has that many (chosen at random, weighted by size), a random subset of its visible page files
 * (hidden folders left out), and asks the title of one of them that has a title.
 */
export function planSites(corporaDir: string, spec: SitePlanSpec): PlannedSite[] {
  const random = seededRandom(spec.seed);
  const pools = BIG_CORPORA.map((corpus) => ({
    corpus,
    files: corpusFiles(path.join(corporaDir, corpus)).filter(
      (f) => isPage(f) && !f.split('/').some((part) => part.startsWith('.')),
    ),
  }));
  const sites: PlannedSite[] = [];
  for (let i = 0; i < spec.sites; i++) {
    const size = spec.minPages + Math.floor(random() * (spec.maxPages - spec.minPages + 1));
    const fit = pools.filter((p) => p.files.length >= size);
    if (fit.length === 0)
      throw new Error(
        `no corpus has ${size} pages (largest: ${Math.max(...pools.map((p) => p.files.length))})`,
      );
    const total = fit.reduce((n, p) => n + p.files.length, 0);
    let pick = random() * total;
    let pool = fit[fit.length - 1] as (typeof fit)[number];
    for (const candidate of fit) {
      pick -= candidate.files.length;
      if (pick < 0) {
        pool = candidate;
        break;
      }
    }
    const files = shuffled(pool.files, random).slice(0, size).sort();
    const domain = siteDomain(i);
    let question: string | null = null;
    let questionPage = '';
    for (const file of shuffled(files, random)) {
      question = pageTitle(path.join(corporaDir, pool.corpus, file));
      if (question !== null) {
        questionPage = `${domain}/${file.replace(/\.mdx?$/i, '')}`;
        break;
      }
    }
    sites.push({ domain, corpus: pool.corpus, files, question: question ?? 'getting started', questionPage });
  }
  return sites;
}
