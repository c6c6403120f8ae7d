import type { Context } from 'hono';
import { Hono } from 'hono';
import { raw } from 'hono/html';
import { clientIp } from '../../../limits/client-ip.ts';
import type { RateLimitStore } from '../../../limits/rate-limit-store.ts';
import { ASSISTANT_KEY_PREFIX } from '../../../tenancy/api-keys.ts';
import {
  ConsoleSignInError,
  findConsoleSession,
  MAX_SIGN_IN_KEY_CHARS,
  signInToConsole,
  signOutOfConsole,
} from '../../../tenancy/console-sessions.ts';
import type { AppEnv } from '../../app-env.ts';
import { DocentError } from '../../errors.ts';
import type { ConsoleEnv } from './console-env.ts';
import {
  CONSOLE_HEADERS,
  clearSessionCookie,
  type GuardDeps,
  requireSameOrigin,
  requireSession,
  sessionSecret,
  setSessionCookie,
} from './console-guard.ts';
import { readForm } from './form-body.ts';
import { refusedField } from './layout.tsx';

/** Sign-in attempts per client address per minute: keys cannot be guessed, but a form can be hammered. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 20;

function SignInPage(props: { error?: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>Sign in · Docent console</title>
        <style>
          {raw(`body{margin:0;min-height:100vh;display:grid;place-items:center;font:15px/1.5 system-ui,sans-serif;background:#0f172a;color:#111827}
form{box-sizing:border-box;background:#fff;border-radius:12px;padding:1.6rem 1.8rem;width:min(26rem,92vw)}h1{font-size:1.3rem;margin:0 0 .3rem}
p{color:#4b5563;margin:.2rem 0 1rem}label{display:block;font-weight:600;margin-bottom:.3rem}
input{width:100%;font:14px ui-monospace,monospace;padding:.55rem .6rem;border:1px solid #cbd5e1;border-radius:6px;box-sizing:border-box}
button{margin-top:1rem;width:100%;padding:.6rem;border:0;border-radius:6px;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;cursor:pointer}
.error{color:#991b1b;background:#fee2e2;border-radius:6px;padding:.5rem .7rem;margin-bottom:.8rem}`)}
        </style>
      </head>
      <body>
        <main>
          <form method="post" action="/console/login">
            <h1>Docent console</h1>
            <p>
              Sign in with an admin key of your organization (svc_…). It is exchanged for a session and never
              kept in the browser.
            </p>
            {props.error ? (
              <div class="error" role="alert" id="key-error">
                {props.error}
              </div>
            ) : null}
            <label for="key">Admin key</label>
            <input
              id="key"
              name="key"
              type="password"
              autocomplete="off"
              required
              maxlength={MAX_SIGN_IN_KEY_CHARS}
              // A refused key: the field says so and is where the cursor is, ready for another.
              {...(props.error ? refusedField('key-error') : {})}
            />
            <button type="submit">Sign in</button>
          </form>
        </main>
      </body>
    </html>
  );
}

function page(c: Context, status: 200 | 401 | 429, error?: string): Response | Promise<Response> {
  return c.html(<SignInPage {...(error ? { error } : {})} />, status, CONSOLE_HEADERS);
}

/** `GET|POST /console/login` and `POST /console/logout`. */
export function signInRoutes(deps: GuardDeps & { store: RateLimitStore }): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  route.get('/console/login', async (c) => {
    const secret = sessionSecret(c);
    if (secret && (await findConsoleSession(deps.storage, secret))) return c.redirect('/console', 303);
    return page(c, 200);
  });
  route.post('/console/login', async (c) => {
    requireSameOrigin(c, deps);
    const decision = await deps.store.hit([
      {
        key: `console-sign-in:${clientIp(c, deps.trustProxy)}`,
        limit: SIGN_IN_ATTEMPTS_PER_MINUTE,
        windowMs: 60_000,
      },
    ]);
    if (!decision.allowed) return page(c, 429, 'Too many sign-in attempts. Wait a minute and try again.');
    const body = await readForm(c);
    const key = typeof body.key === 'string' ? body.key : '';
    try {
      const { secret } = await signInToConsole(deps.storage, key);
      setSessionCookie(c, deps, secret);
      return c.redirect('/console', 303);
    } catch (error) {
      if (error instanceof ConsoleSignInError)
        return page(
          c,
          401,
          // Told by its prefix alone, so a live assistant key and a dead one read the same.
          key.trim().startsWith(ASSISTANT_KEY_PREFIX)
            ? 'That is an assistant key (svc_dsc_…), for the widget and the message API. Sign in with an admin key (svc_…): npm run docent -- init printed one, and npm run docent -- keys create --admin --site <domain> makes another.'
            : 'That is not a live admin key of any organization.',
        );
      throw error;
    }
  });
  const signedIn = new Hono<ConsoleEnv>();
  signedIn.use('/console/logout', requireSession(deps));
  signedIn.post('/console/logout', async (c) => {
    const secret = sessionSecret(c);
    if (!secret) throw new DocentError('unauthorized', 'Not signed in');
    await signOutOfConsole(deps.storage, secret);
    clearSessionCookie(c);
    return c.redirect('/console/login', 303);
  });
  route.route('/', signedIn as unknown as Hono<AppEnv>);
  return route;
}
