import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Storage } from '../storage/database.ts';
import { bootstrapSite } from './bootstrap-site.ts';
import { countOrganizations } from './organizations.ts';

export const DEMO_DOMAIN = 'demo';

/**
 * What the demo's widget offers to ask on an empty panel: questions its docs answer from the section
 * that covers them (src/eval/demo-answers.test.ts checks each). The server stores them as the site's
 * starter questions once `seedDemo` has created it.
 */
export const DEMO_STARTER_QUESTIONS = [
  'How do I embed the widget in my site?',
  'Can I use PostgreSQL?',
  'How do I rotate an API key?',
] as const;

/**
 * First start on an empty database: a demo organization and site built from the bundled docs, and a
 * key printed with a ready-to-paste request, so a new user can ask a question straight away.
 */
export async function seedDemo(
  storage: Storage,
  config: Config,
  logger: Logger,
): Promise<{ siteId: string } | null> {
  if ((await countOrganizations(storage)) > 0) return null;
  const docsDir = path.resolve(config.docsDir);
  const result = await bootstrapSite(storage, {
    domain: DEMO_DOMAIN,
    docsDir,
    organizationName: 'Demo',
    siteName: 'Docent',
  });
  logger.info({ site: DEMO_DOMAIN, ...result.ingestion.counts }, 'demo site ingested');
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const base = `http://${host}:${config.port}`;
  // The current wire (v2, what AI SDK 5 and later send); v1 is deprecated. No chat `id`: a curl call
  // has nothing to resume with.
  const body = JSON.stringify({
    fp: 'anonymous',
    messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'How do I ingest my docs?' }] }],
  });
  process.stdout.write(
    [
      '',
      `Demo site "${DEMO_DOMAIN}" created from ${docsDir} (${result.ingestion.counts.pages} pages).`,
      `Assistant key (shown once): ${result.assistantKey}`,
      '',
      'Ask it a question:',
      `  curl -N ${base}/v2/assistant/${DEMO_DOMAIN}/message \\`,
      `    -H 'Authorization: Bearer ${result.assistantKey}' \\`,
      `    -H 'Content-Type: application/json' \\`,
      `    -d '${body}'`,
      '',
    ].join('\n'),
  );
  return { siteId: result.site.id };
}
