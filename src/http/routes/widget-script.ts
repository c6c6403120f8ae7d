import { Hono } from 'hono';
import type { WidgetAsset, WidgetAssets } from '../../widget-assets/widget-asset.ts';
import type { AppEnv } from '../app-env.ts';
import { DocentError } from '../errors.ts';
import { requestHeader } from '../node-request.ts';
import { etagMatches } from './page-view.ts';

/** `/widget.js` may change with a deploy: browsers reuse it for 5 minutes, then revalidate by ETag. */
const STABLE_CACHE = 'public, max-age=300, stale-while-revalidate=86400';
/** `/widget/<hash>.js` and the panel's `/widget/panel-<hash>.js` never change. */
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';
/** Names of a launcher or panel another build of Docent served. */
const LAUNCHER_FILE = /^[0-9a-f]{16}\.js$/;
const PANEL_FILE = /^panel-[0-9a-f]{16}\.js$/;

/**
 * The reader's widget: `GET /widget.js`, the launcher docs pages embed; `GET /widget/<hash>.js`, the same
 * bytes under a content-addressed name for pages that pin a version; and `GET /widget/panel-<hash>.js`,
 * the panel the launcher loads. Any page may load them.
 */
export function widgetScriptRoute(assets: WidgetAssets | null): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  route.get('/widget.js', (c) => serve(assets?.launcher ?? null, STABLE_CACHE, (h) => requestHeader(c, h)));
  route.get('/widget/:file', (c) => {
    const file = c.req.param('file');
    const asset =
      assets && (file === `${assets.launcher.hash}.js` ? assets.launcher : assets.files.get(file));
    if (assets && !asset) {
      const current = currentFileFor(file, assets);
      if (current !== null) return moved(current);
      throw new DocentError(
        'not_found',
        `No widget file ${file}; this server has ${assets.launcher.hash}.js`,
      );
    }
    return serve(asset ?? null, VERSIONED_CACHE, (h) => requestHeader(c, h));
  });
  return route;
}

/**
 * This build's file for a launcher or panel of another build. After an upgrade, a page still running the
 * old launcher (a browser may use a cached `widget.js` for a day while it revalidates, and a page may pin
 * `/widget/<hash>.js`) asks for files this server no longer has: the widget then failed to open until the
 * cache expired, or for good. It gets this build's instead; the panel refuses a launcher it was not built
 * to work with (PANEL_CONTRACT_VERSION), so the reader is never worse off than with the 404.
 */
function currentFileFor(file: string, assets: WidgetAssets): string | null {
  if (LAUNCHER_FILE.test(file)) return `${assets.launcher.hash}.js`;
  if (PANEL_FILE.test(file)) return assets.panelFile;
  return null;
}

/** A redirect that no cache keeps, so the next build's file is asked for again. */
function moved(file: string): Response {
  return new Response(null, {
    status: 302,
    headers: {
      // Relative: resolved against /widget/…, whatever path Docent is served under.
      Location: file,
      'Cache-Control': 'no-store',
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    },
  });
}

/** One built script, compressed as the browser asks, revalidated by its hash. */
export function serve(
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
