import type { FrameworkContext } from './framework-context.ts';
import { joinUrl } from './nav-builder.ts';

export type FrameworkKind = 'docusaurus' | 'mkdocs' | 'starlight' | 'vitepress';

export interface DetectedFramework {
  kind: FrameworkKind;
  /** Folder holding the config, relative to the docs root ('' for the root itself). */
  siteDir: string;
  /** The config file, relative to the docs root. */
  configFile: string;
}

/**
 * Config files per framework, most specific first. An Astro config counts only when it mentions
 * Starlight: a plain Astro site has no docs navigation to read.
 */
const CANDIDATES: { kind: FrameworkKind; files: string[]; mustMention?: RegExp }[] = [
  {
    kind: 'docusaurus',
    files: [
      'docusaurus.config.ts',
      'docusaurus.config.mts',
      'docusaurus.config.js',
      'docusaurus.config.mjs',
      'docusaurus.config.cjs',
    ],
  },
  {
    kind: 'starlight',
    files: ['astro.config.mjs', 'astro.config.ts', 'astro.config.mts', 'astro.config.js', 'astro.config.cjs'],
    mustMention: /starlight/,
  },
  {
    kind: 'vitepress',
    files: [
      '.vitepress/config.ts',
      '.vitepress/config.mts',
      '.vitepress/config.js',
      '.vitepress/config.mjs',
      '.vitepress/config.cts',
      '.vitepress/config.cjs',
    ],
  },
  { kind: 'mkdocs', files: ['mkdocs.yml', 'mkdocs.yaml'] },
];

/**
 * Where a docs repository keeps its site when Docent is pointed at the repository root: Docusaurus in
 * `website/`, VitePress and MkDocs in `docs/`. The root is tried first.
 */
const SITE_DIRS = ['', 'website', 'docs'];

/**
 * Finds the framework config of the folder. Every probe goes through the contained reader, so a config
 * that is a link out of the folder is refused (with a warning) and still says which framework it is:
 * its defaults are then read, or, for a mkdocs.yml, the ingestion fails (FrameworkContext.readRequiredConfig).
 */
export const detectFramework = async (ctx: FrameworkContext): Promise<DetectedFramework | null> => {
  for (const siteDir of SITE_DIRS) {
    for (const candidate of CANDIDATES) {
      for (const name of candidate.files) {
        const configFile = joinUrl(siteDir, name);
        const read = await ctx.readText(configFile);
        if (read.status === 'missing') continue;
        if (read.status === 'ok' && candidate.mustMention && !candidate.mustMention.test(read.text)) continue;
        return { kind: candidate.kind, siteDir, configFile };
      }
    }
  }
  return null;
};
