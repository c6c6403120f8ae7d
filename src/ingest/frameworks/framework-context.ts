import { type ContainedFolder, containedFolder, MAX_PAGE_FILE_BYTES } from '../contained-file.ts';
import { DocsConfigError } from '../navigation.ts';
import type { WarningSink } from '../warnings.ts';
import { FRONT_MATTER_NODES_PER_CHAR, MAX_FRAMEWORK_CONFIG_BYTES, MAX_STATIC_NODES } from './limits.ts';
import { readStaticModule } from './static-config.ts';
import type { StaticValue } from './static-value.ts';
import { readYamlConfig } from './yaml-config.ts';

/**
 * What reading a config file gave: its value, or that it is absent, or that it was refused or cannot be
 * read (`problem`, what a warning or an error says, at `line` when known).
 */
export type ConfigRead =
  | { status: 'ok'; value: StaticValue }
  | { status: 'missing' }
  | { status: 'unusable'; problem: string; line?: number; warned?: true };

export type ConfigText =
  | { status: 'ok'; text: string }
  | { status: 'missing' }
  | { status: 'refused'; reason: string };

const unusable = (problem: string, line: number | undefined): ConfigRead =>
  line === undefined ? { status: 'unusable', problem } : { status: 'unusable', problem, line };

const CODE_CONFIG = /\.(c|m)?(j|t)sx?$/i;
const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?(?:\n|$)/;

/**
 * What every framework reader shares: the docs folder (read only through contained-file.ts), the list of
 * page files the loader found, the warning sink, and caches so a config or page is read once.
 */
export class FrameworkContext {
  private readonly folder: ContainedFolder;
  private readonly texts = new Map<string, Promise<ConfigText>>();
  private readonly configs = new Map<string, Promise<ConfigRead>>();
  private readonly warnedConfigs = new Set<string>();
  private readonly frontMatters = new Map<string, Promise<StaticValue | undefined>>();
  readonly fileSet: ReadonlySet<string>;

  constructor(
    root: string,
    readonly sink: WarningSink,
    /** Every .md/.mdx file under the root, relative and sorted (listDocsFiles). */
    readonly files: readonly string[],
  ) {
    this.folder = containedFolder(root);
    this.fileSet = new Set(files);
  }

  /** A problem with the config (not with one page): capped like docs.json's navigation warnings. */
  warn(file: string, line: number | undefined, message: string): void {
    this.sink.add(
      line === undefined || line <= 0 ? { file, message } : { file, line, message },
      'navigation',
      'more navigation problems',
    );
  }

  /**
   * Raw text of a config file; absent is silent, refused (a link out of the folder, or to nothing) is
   * warned. A link to nothing is a config that cannot be read, not a folder without one: taken for
   * absent, a mkdocs.yml so linked would have the folder read as plain Markdown, publishing what its
   * exclude_docs hides (as for docs.json, navigation.ts).
   */
  readText(rel: string): Promise<ConfigText> {
    let cached = this.texts.get(rel);
    if (!cached) {
      cached = this.folder
        .readText(rel, MAX_FRAMEWORK_CONFIG_BYTES)
        .then(async (read): Promise<ConfigText> => {
          if (read.ok) return { status: 'ok', text: read.text };
          if (read.missing && !(await this.folder.isDanglingLink(rel))) return { status: 'missing' };
          const reason = read.missing ? 'a symbolic link to nothing' : read.reason;
          this.sink.add({ file: rel, message: `cannot read config file (${reason}); ignored` }, 'io');
          return { status: 'refused', reason };
        });
      this.texts.set(rel, cached);
    }
    return cached;
  }

  /**
   * A config file as a value: JS/TS read statically, anything else as YAML/JSON. Cached per file. One
   * that cannot be read is warned about once, and the reader goes on with the framework's defaults.
   */
  async readConfig(rel: string): Promise<ConfigRead> {
    const read = await this.configRead(rel);
    if (read.status === 'unusable' && read.warned === undefined && !this.warnedConfigs.has(rel)) {
      this.warnedConfigs.add(rel);
      this.warn(rel, read.line, `${read.problem}; using defaults`);
    }
    return read;
  }

  /**
   * A config the framework itself refuses to build without (`mkdocs.yml`): one that is there but cannot
   * be read fails the ingestion (DocsConfigError) and the site keeps what it had. Read with defaults, the
   * folder would lose its navigation and publish what the config excludes (`exclude_docs`, drafts).
   */
  async readRequiredConfig(rel: string): Promise<Exclude<ConfigRead, { status: 'unusable' }>> {
    const read = await this.configRead(rel);
    if (read.status !== 'unusable') return read;
    const where = read.line === undefined ? '' : ` (line ${read.line})`;
    throw new DocsConfigError(
      `${read.problem}${where}; fix it and ingest again (nothing was indexed or changed)`,
    );
  }

  private configRead(rel: string): Promise<ConfigRead> {
    let cached = this.configs.get(rel);
    if (!cached) {
      cached = this.loadConfig(rel);
      this.configs.set(rel, cached);
    }
    return cached;
  }

  private async loadConfig(rel: string): Promise<ConfigRead> {
    const read = await this.readText(rel);
    if (read.status === 'missing') return { status: 'missing' };
    // readText has told the sink why.
    if (read.status === 'refused')
      return { status: 'unusable', problem: `cannot read ${rel} (${read.reason})`, warned: true };
    const text = read.text;
    if (CODE_CONFIG.test(rel)) {
      const result = readStaticModule(text, rel);
      if (!result.ok) return unusable(`cannot read ${rel} statically (${result.reason})`, result.line);
      if (!result.module.exported)
        return { status: 'unusable', problem: `${rel} has no default export or module.exports` };
      return { status: 'ok', value: result.module.exported };
    }
    const result = readYamlConfig(text);
    if (!result.ok) return unusable(`cannot read ${rel} (${result.reason})`, result.line);
    return { status: 'ok', value: result.value };
  }

  /**
   * A page's front matter as a value (undefined when it has none or it cannot be read: the page loader
   * reports unreadable pages, so nothing is warned here).
   */
  frontMatter(rel: string): Promise<StaticValue | undefined> {
    let cached = this.frontMatters.get(rel);
    if (!cached) {
      cached = this.folder.readText(rel, MAX_PAGE_FILE_BYTES).then((read) => {
        if (!read.ok) return undefined;
        const block = FRONT_MATTER.exec(read.text)?.[1];
        if (block === undefined) return undefined;
        // Aliases may not make front matter bigger than its text could spell out: a few hundred bytes
        // of nested aliases otherwise expand to the whole node budget, page after page.
        const budget = Math.min(MAX_STATIC_NODES, FRONT_MATTER_NODES_PER_CHAR * block.length + 64);
        const parsed = readYamlConfig(block, budget);
        if (parsed.ok && parsed.overBudget) {
          this.warn(rel, 1, `front matter expands to more than ${budget} values (aliases); not read`);
          return undefined;
        }
        return parsed.ok ? parsed.value : undefined;
      });
      this.frontMatters.set(rel, cached);
    }
    return cached;
  }

  /** Page files under `dir` (relative, no trailing slash; '' for the root), in listing order. */
  filesUnder(dir: string): string[] {
    if (dir === '') return [...this.files];
    const prefix = `${dir}/`;
    return this.files.filter((file) => file.startsWith(prefix));
  }
}
