import { listDocsFiles } from '../docs-files.ts';
import { DocsConfigError, type Navigation } from '../navigation.ts';
import type { WarningSink } from '../warnings.ts';
import { type DetectedFramework, detectFramework } from './detect-framework.ts';
import { readDocusaurus } from './docusaurus.ts';
import { FrameworkContext } from './framework-context.ts';
import { readMkDocs } from './mkdocs.ts';
import { readStarlight } from './starlight.ts';
import { readVitePress } from './vitepress.ts';

const readers: Record<
  DetectedFramework['kind'],
  (ctx: FrameworkContext, site: DetectedFramework) => Promise<Navigation>
> = {
  docusaurus: (ctx, site) => readDocusaurus(ctx, site.siteDir, site.configFile),
  mkdocs: (ctx, site) => readMkDocs(ctx, site.siteDir, site.configFile),
  starlight: (ctx, site) => readStarlight(ctx, site.siteDir, site.configFile),
  vitepress: (ctx, site) => readVitePress(ctx, site.siteDir, site.configFile),
};

/**
 * The navigation of a Docusaurus, MkDocs, Astro Starlight or VitePress site, read from its config without
 * running it; null when the folder has none of their configs. Page ids are the pages' URL paths under the
 * site's base URL, with `file` naming the Markdown file where the two differ. Throws DocsConfigError when a
 * reader fails outright.
 *
 * `files` is the folder's page list (listDocsFiles(root).files) when the caller has it already; otherwise
 * the folder is listed here.
 */
export const readFrameworkNavigation = async (
  root: string,
  sink: WarningSink,
  files?: readonly string[],
): Promise<Navigation | null> => {
  const ctx = new FrameworkContext(root, sink, files ?? (await listDocsFiles(root)).files);
  const site = await detectFramework(ctx);
  if (!site) return null;
  try {
    return await readers[site.kind](ctx, site);
  } catch (error) {
    if (error instanceof DocsConfigError) throw error;
    // The readers turn bad input into warnings; this is the guard for a bug meeting an input nobody foresaw.
    // The job fails, as for an unusable docs.json: read as plain Markdown, the folder would publish what the
    // framework hides (drafts, unlisted docs, excluded files).
    throw new DocsConfigError(
      `${site.configFile}: cannot read the ${site.kind} navigation (${(error as Error).message}); nothing was indexed or changed (read as plain Markdown, the folder would publish the pages ${site.kind} hides)`,
    );
  }
};
