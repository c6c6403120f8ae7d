import type { Site } from '../tenancy/sites.ts';
import { storedStarterQuestions } from './providers/site-model-settings.ts';

/** What the widget shows before the first question (`GET /v2/assistant/{domain}/config`). */
export interface WidgetConfig {
  domain: string;
  name: string;
  /** The site's starter questions, in the owner's order; empty when it has none. */
  starterQuestions: string[];
}

export function widgetConfig(site: Site): WidgetConfig {
  return {
    domain: site.domain,
    name: site.name,
    starterQuestions: storedStarterQuestions(site.starter_questions) ?? [],
  };
}
