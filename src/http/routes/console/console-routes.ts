import { Hono } from 'hono';
import { trimTrailingSlash } from 'hono/trailing-slash';
import type { ModelInUse } from '../../../assistant/model-provider.ts';
import type { TrustProxy } from '../../../config.ts';
import type { RateLimitStore } from '../../../limits/rate-limit-store.ts';
import type { SiteSearch } from '../../../search/site-search.ts';
import type { Storage } from '../../../storage/database.ts';
import type { IngestionRunner } from '../../../tenancy/ingestion-runner.ts';
import type { TenancyCache } from '../../../tenancy/tenancy-cache.ts';
import type { WidgetAssets } from '../../../widget-assets/widget-asset.ts';
import type { AppEnv } from '../../app-env.ts';
import { DocentError } from '../../errors.ts';
import { requestHeader } from '../../node-request.ts';
import { limitBody } from '../../request-body.ts';
import { serve } from '../widget-script.ts';
import type { ConsoleEnv } from './console-env.ts';
import { consoleHeaders, requireSession } from './console-guard.ts';
import { conversationsScreen } from './conversations-screen.tsx';
import { exportRoutes } from './export-routes.ts';
import { feedbackScreen } from './feedback-screen.tsx';
import { refuseNulInAddress } from './form-body.ts';
import { insightsScreens } from './insights-screens.tsx';
import { keysScreen } from './keys-screen.tsx';
import { overviewScreen } from './overview-screen.tsx';
import { signInRoutes } from './sign-in.tsx';
import { sitesScreen } from './sites-screen.tsx';
import { usageScreen } from './usage-screen.tsx';

export interface ConsoleDeps {
  storage: Storage;
  search: SiteSearch;
  store: RateLimitStore;
  trustProxy: TrustProxy;
  publicUrl: string | null;
  ingestions: IngestionRunner;
  /** Key, site and plan rows the assistant routes reuse: a change here must not wait for their expiry. */
  tenancy: TenancyCache;
  assets: WidgetAssets | null;
  /** Which model writes a site's answers here (AppDeps.modelInUse); null: not told. */
  modelInUse: ((siteModel: string | null) => ModelInUse) | null;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Largest console form: a site's settings form (instructions, starter questions, origins), URL-encoded. */
export const MAX_CONSOLE_FORM_BYTES = 64 * 1024;

/** The owner's console at `/console`: sign-in, then one screen per concern, each over its use cases. */
export function consoleRoutes(deps: ConsoleDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('/console', consoleHeaders);
  app.use('/console/*', consoleHeaders);
  // `/console/` and `/console/keys/`, as typed or bookmarked, are the screens without the slash.
  app.use('/console/*', trimTrailingSlash());
  const consoleFile = [...(deps.assets?.files.keys() ?? [])].find((name) => name.startsWith('console-'));
  const scriptSrc = consoleFile ? `/console/assets/${consoleFile}` : null;
  app.get('/console/assets/:file', (c) => {
    const asset = c.req.param('file') === consoleFile ? deps.assets?.files.get(consoleFile) : undefined;
    if (!asset) throw new DocentError('not_found', 'No such console asset');
    return serve(asset, IMMUTABLE, (name) => requestHeader(c, name));
  });
  // Before sign-in too: its form is read before any session exists.
  app.use('/console/*', limitBody(MAX_CONSOLE_FORM_BYTES));
  app.use('/console', refuseNulInAddress);
  app.use('/console/*', refuseNulInAddress);
  app.route('/', signInRoutes(deps));

  const screens = new Hono<ConsoleEnv>();
  const guard = requireSession(deps);
  screens.use('/console', guard);
  screens.use('/console/*', guard);
  screens.use('/console/*', async (c, next) => {
    await next();
    if (c.req.method === 'POST' && c.res.status < 400) deps.tenancy.clear();
  });
  screens.route('/', overviewScreen({ storage: deps.storage, scriptSrc }));
  screens.route('/', conversationsScreen({ storage: deps.storage, scriptSrc }));
  screens.route('/', insightsScreens({ storage: deps.storage, search: deps.search, scriptSrc }));
  screens.route('/', feedbackScreen({ storage: deps.storage, scriptSrc }));
  screens.route('/', exportRoutes({ storage: deps.storage }));
  screens.route(
    '/',
    sitesScreen({
      storage: deps.storage,
      ingestions: deps.ingestions,
      scriptSrc,
      modelInUse: deps.modelInUse,
    }),
  );
  screens.route(
    '/',
    keysScreen({ storage: deps.storage, scriptSrc, trustProxy: deps.trustProxy, publicUrl: deps.publicUrl }),
  );
  screens.route('/', usageScreen({ storage: deps.storage, scriptSrc }));
  app.route('/', screens as unknown as Hono<AppEnv>);
  return app;
}
