import type { Context } from 'hono';
import type { TrustProxy } from '../config.ts';
import { nodeBindings, requestHeader } from './node-request.ts';

/** A host as it may appear in a URL: name or address, optional port. Anything else is not used. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * This server's origin as the client reached it (`http://localhost:3000`), for links in answers when
 * no public URL is configured. `X-Forwarded-Proto`/`-Host` count only behind a trusted proxy; the Host
 * header is the client's own word, so production deployments set `DOCENT_PUBLIC_URL` instead.
 *
 * The response then says it varies by the headers read (`Vary`): llms.txt and page views are cacheable,
 * and a shared cache that keyed them on the URL alone would serve one client's forged
 * `X-Forwarded-Host` to every later reader as the links of its cached copy.
 */
export function requestOrigin(c: Context, trustProxy: TrustProxy): string {
  const forwarded = trustProxy !== false;
  c.header('Vary', forwarded ? 'Host, X-Forwarded-Host, X-Forwarded-Proto' : 'Host', { append: true });
  const forwardedHost = forwarded ? requestHeader(c, 'X-Forwarded-Host')?.split(',')[0]?.trim() : undefined;
  const host = [forwardedHost, requestHeader(c, 'Host')].find((h) => h !== undefined && HOST.test(h));
  const forwardedProto = forwarded ? requestHeader(c, 'X-Forwarded-Proto')?.split(',')[0]?.trim() : undefined;
  const node = nodeBindings(c);
  const socketProto =
    node === undefined
      ? new URL(c.req.url).protocol.replace(':', '')
      : 'encrypted' in node.incoming.socket
        ? 'https'
        : 'http';
  const proto = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : socketProto;
  return `${proto}://${host ?? (node === undefined ? new URL(c.req.url).host : 'localhost')}`;
}
