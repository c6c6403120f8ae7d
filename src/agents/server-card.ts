import type { Site } from '../tenancy/sites.ts';
import { DOCENT_VERSION } from '../version.ts';

/** The schema the card follows: the MCP Server Card extension (SEP-2127). */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

export interface ServerCard {
  $schema: string;
  name: string;
  version: string;
  title: string;
  description: string;
  remotes: {
    type: 'streamable-http';
    url: string;
    headers: { name: string; description: string; isRequired: boolean; isSecret: boolean }[];
  }[];
}

/** A site's docs as a title: `Acme docs`, or the name alone when it says so already (`Acme Docs`). */
export function docsTitle(name: string): string {
  const trimmed = name.trim();
  return /\b(docs|documentation)$/i.test(trimmed) ? trimmed : `${trimmed} docs`;
}

/** Where a site's MCP server is: `{docentUrl}/mcp/{domain}`. */
export function mcpUrl(docentUrl: string, domain: string): string {
  return `${docentUrl.replace(/\/+$/, '')}/mcp/${encodeURIComponent(domain)}`;
}

/**
 * A site's MCP server card: what a discovery tool reads before connecting. Its `name` is the reverse-DNS
 * form the extension asks for: Docent's host reversed, then the site (`com.example.docs-ai/mydocs`).
 */
export function serverCard(site: Pick<Site, 'domain' | 'name' | 'public'>, docentUrl: string): ServerCard {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: `${reverseDnsHost(new URL(docentUrl).hostname)}/${site.domain}`,
    version: DOCENT_VERSION,
    title: docsTitle(site.name),
    description: `Search, read and ask the ${site.name} documentation: tools search_docs, get_page and ask_docs.`,
    remotes: [
      {
        type: 'streamable-http',
        url: mcpUrl(docentUrl, site.domain),
        headers:
          site.public === 1
            ? []
            : [
                {
                  name: 'Authorization',
                  description: "Bearer and the site's assistant key (svc_dsc_…)",
                  isRequired: true,
                  isSecret: true,
                },
              ],
      },
    ],
  };
}

/**
 * `docs-ai.example.com` → `com.example.docs-ai`. An IP address or a one-label host (`localhost`) has no
 * DNS name to reverse ("1.0.0.127" would name no one): it is kept as it is.
 */
export function reverseDnsHost(hostname: string): string {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host.includes(':') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) || !host.includes('.')) return host;
  return host.split('.').reverse().join('.');
}
