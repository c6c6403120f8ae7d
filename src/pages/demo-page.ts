import type { Storage } from '../storage/database.ts';
import type { PageChrome } from './render-page-html.ts';
import { listPages, sectionsOf } from './site-navigation.ts';

/**
 * The demo page (`npm start`, then `http://localhost:3000/`): the demo site's docs in the page view, with
 * navigation and the reader's widget on every page, signed with a key the server made at start.
 */
export interface DemoPage {
  domain: string;
  /** The demo site's assistant key, public on these pages as any widget's key is on its docs. */
  key: string;
  /** Address of the widget script, e.g. `/widget/<hash>.js`. */
  widgetSrc: string;
}

export function demoPagesBase(domain: string): string {
  return `/sites/${encodeURIComponent(domain)}/pages/`;
}

export async function demoChrome(
  storage: Storage,
  site: { id: string; name: string },
  demo: DemoPage,
): Promise<PageChrome> {
  const sections = sectionsOf(await listPages(storage.db, site.id));
  return {
    siteName: site.name,
    sections,
    pagesBase: demoPagesBase(demo.domain),
    widget: { src: demo.widgetSrc, domain: demo.domain, key: demo.key },
  };
}

/** The page `/` opens: the first in the navigation. */
export async function demoHomePath(storage: Storage, siteId: string): Promise<string | undefined> {
  return sectionsOf(await listPages(storage.db, siteId))[0]?.pages[0]?.path;
}
