import { Hono } from 'hono';
import type { WidgetAsset } from '../../widget-assets/widget-asset.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';
import { requestHeader } from '../node-request.ts';
import { etagMatches } from './page-view.ts';

/** `/widget.js` may change with a deploy: browsers reuse it for 5 minutes, then revalidate by ETag. */
const STABLE_CACHE = 'public, max-age=300, stale-while-revalidate=86400';
/** `/widget/<hash>.js` never changes. */
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';

/**
 * The reader's widget: `GET /widget.js`, the address docs pages embed, and `GET /widget/<hash>.js`, the
 * same bytes under a content-addressed name for pages that pin a version. Any page may load it.
 */
export function widgetScriptRoute(asset: WidgetAsset | null): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  route.get('/widget.js', (c) => serve(asset, STABLE_CACHE, (header) => requestHeader(c, header)));
  route.get('/widget/:file', (c) => {
    if (asset && c.req.param('file') !== `${asset.hash}.js`)
      throw new DocentError(
        'not_found',
        `No widget version ${c.req.param('file')}; this server has ${asset.hash}`,
      );
    return serve(asset, VERSIONED_CACHE, (header) => requestHeader(c, header));
  });
  return route;
}

function serve(
  asset: WidgetAsset | null,
  cacheControl: string,
  header: (name: string) => string | undefined,
): Response {
  if (!asset)
    throw new DocentError('unavailable', 'The widget is not built on this server: run `npm run build`');
  // Weak: the bytes on the wire differ by encoding, the script they decode to does not.
  const etag = `W/"${asset.hash}"`;
  const headers: Record<string, string> = {
    'Cache-Control': cacheControl,
    ETag: etag,
    Vary: 'Accept-Encoding',
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'X-Content-Type-Options': 'nosniff',
  };
  if (etagMatches(header('If-None-Match'), `"${asset.hash}"`))
    return new Response(null, { status: 304, headers });
  const accepted = (header('Accept-Encoding') ?? '').toLowerCase();
  const [body, encoding] = /\bbr\b/.test(accepted)
    ? [asset.brotli(), 'br']
    : /\bgzip\b/.test(accepted)
      ? [asset.gzip(), 'gzip']
      : [asset.body, undefined];
  return new Response(body, {
    status: 200,
    headers: {
      ...headers,
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Length': String(body.length),
      ...(encoding ? { 'Content-Encoding': encoding } : {}),
    },
  });
}
