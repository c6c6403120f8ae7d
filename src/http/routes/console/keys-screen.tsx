import { type Context, Hono } from 'hono';
import type { TrustProxy } from '../../../config.ts';
import type { Storage } from '../../../storage/database.ts';
import {
  createApiKey,
  getApiKey,
  KeyCreationLimitError,
  keyNameSchema,
  keySummary,
  listApiKeys,
  revokeApiKey,
} from '../../../tenancy/api-keys.ts';
import { getOrganizationSite, listSites, MAX_NAME_INPUT_UNITS } from '../../../tenancy/sites.ts';
import { DocentError } from '../../errors.ts';
import { requestOrigin } from '../../request-origin.ts';
import type { ConsoleEnv } from './console-env.ts';
import { readForm } from './form-body.ts';
import { Csrf, Layout, refusedField } from './layout.tsx';

/** Keys: create (the secret shown once), list, revoke. */
export function keysScreen(deps: {
  storage: Storage;
  scriptSrc: string | null;
  trustProxy: TrustProxy;
  publicUrl: string | null;
}): Hono<ConsoleEnv> {
  const route = new Hono<ConsoleEnv>();

  const page = async (
    c: Context<ConsoleEnv>,
    notice: {
      secret?: string;
      error?: string;
      /** The field the error is about: marked invalid and described by it. */
      errorField?: 'name' | 'site';
      widgetTag?: string;
      done?: string;
    } = {},
  ) => {
    const session = c.get('session');
    const [keys, sites] = await Promise.all([
      listApiKeys(deps.storage, session.organization.id),
      listSites(deps.storage, session.organization.id),
    ]);
    const domainOf = new Map(sites.map((s) => [s.id, s.domain]));
    const invalid = (field: 'name' | 'site') =>
      notice.errorField === field ? refusedField('key-error') : {};
    return c.html(
      <Layout title="Keys" session={session} active="keys" scriptSrc={deps.scriptSrc}>
        {notice.secret ? (
          <div class="notice" aria-live="polite" data-form-result>
            {/* Read-only fields, not text: a keyboard reaches them with Tab and copies with Ctrl+A, Ctrl+C
                (a text's selection needs a pointer). */}
            <label for="new-key">
              <strong>Copy this key now: it is shown only once.</strong>
            </label>
            <input id="new-key" class="secret" readonly value={notice.secret} data-testid="new-key" />
            {notice.widgetTag ? (
              <>
                <p>
                  <label for="widget-tag">
                    To put the chat widget on the site's pages, add this tag to each of them:
                  </label>
                </p>
                <textarea id="widget-tag" class="secret" readonly rows={3} data-testid="widget-tag">
                  {notice.widgetTag}
                </textarea>
              </>
            ) : null}
          </div>
        ) : null}
        {notice.done ? (
          <div class="notice" aria-live="polite">
            {notice.done}
          </div>
        ) : null}
        {notice.error ? (
          <div class="notice" role="alert" id="key-error" style="background:#fee2e2;border-color:#fca5a5">
            {notice.error}
          </div>
        ) : null}
        <h2>Create a key</h2>
        <form method="post" action="/console/keys" class="row">
          <Csrf session={session} />
          <label>
            Kind{' '}
            <select name="kind">
              <option value="assistant">assistant (svc_dsc_…, for the widget and readers)</option>
              <option value="admin">admin (svc_…, for the admin API and this console)</option>
            </select>
          </label>
          <label>
            Site{' '}
            <select name="site" {...invalid('site')}>
              {sites.map((s) => (
                <option value={s.domain}>{s.domain}</option>
              ))}
            </select>
          </label>
          <label>
            Name{' '}
            <input
              name="name"
              {...invalid('name')}
              maxlength={MAX_NAME_INPUT_UNITS}
              placeholder="docs widget"
            />
          </label>
          <button class="primary" type="submit">
            Create key
          </button>
        </form>
        <h2>Keys</h2>
        <table>
          <thead>
            <tr>
              <th>Key</th>
              <th>Kind</th>
              <th>Site</th>
              <th>Name</th>
              <th>Created</th>
              <th>Last used</th>
              {/* Named for screen readers (a header-less column is read without one); seen, it is empty. */}
              <th>
                <span class="visually-hidden">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map(keySummary).map((key) => (
              <tr>
                <td>
                  <code>{key.display}</code>
                </td>
                <td>{key.kind}</td>
                <td class="word">{key.siteId ? (domainOf.get(key.siteId) ?? '') : ''}</td>
                <td>{key.name ?? ''}</td>
                <td>{key.createdAt.slice(0, 10)}</td>
                <td class="when">{key.lastUsedAt?.slice(0, 16).replace('T', ' ') ?? 'never'}</td>
                <td>
                  {key.revokedAt ? (
                    <span class="badge bad">revoked {key.revokedAt.slice(0, 10)}</span>
                  ) : key.id === session.key.id ? (
                    <span class="muted">this session's key</span>
                  ) : (
                    <form
                      method="post"
                      action={`/console/keys/${key.id}/revoke`}
                      data-confirm={`Revoke ${key.display}? Widgets and scripts using it stop working at once.`}
                    >
                      <Csrf session={session} />
                      <button class="danger" type="submit" aria-label={`Revoke ${key.display}`}>
                        Revoke
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Layout>,
      notice.error ? 400 : notice.secret ? 201 : 200,
    );
  };

  route.get('/console/keys', (c) =>
    page(
      c,
      c.req.query('revoked') === '1'
        ? { done: 'Key revoked: requests with it are refused from now on.' }
        : {},
    ),
  );

  route.post('/console/keys', async (c) => {
    const session = c.get('session');
    const form = await readForm(c);
    const kind = form.kind === 'admin' ? 'admin' : 'assistant';
    const named =
      typeof form.name === 'string' && form.name.trim() !== ''
        ? keyNameSchema.safeParse(form.name)
        : undefined;
    if (named?.success === false)
      return page(c, {
        error: `The name ${named.error.issues[0]?.message ?? 'is not valid'}.`,
        errorField: 'name',
      });
    const name = named?.data;
    let site: Awaited<ReturnType<typeof getOrganizationSite>> | undefined;
    if (kind === 'assistant') {
      site = await getOrganizationSite(deps.storage, session.organization.id, String(form.site ?? ''));
      if (!site)
        return page(c, {
          error: 'Choose a site of this organization for an assistant key.',
          errorField: 'site',
        });
    }
    try {
      const created = await createApiKey(deps.storage, {
        organizationId: session.organization.id,
        siteId: site?.id ?? null,
        kind,
        ...(name ? { name } : {}),
      });
      // An assistant key's first use is the widget: the tag to paste, from this server's public address.
      const origin = deps.publicUrl ?? requestOrigin(c, deps.trustProxy);
      return page(c, {
        secret: created.key,
        ...(site
          ? {
              widgetTag: `<script src="${origin}/widget.js" data-domain="${site.domain}" data-key="${created.key}" defer></script>`,
            }
          : {}),
      });
    } catch (error) {
      if (error instanceof KeyCreationLimitError) return page(c, { error: error.message });
      throw error;
    }
  });

  route.post('/console/keys/:id/revoke', async (c) => {
    const session = c.get('session');
    const key = await getApiKey(deps.storage, session.organization.id, c.req.param('id'));
    if (!key) throw new DocentError('not_found', 'No such key in this organization');
    // The page offers no button for it; a hand-made request must not lock the owner out mid-session.
    if (key.id === session.key.id)
      throw new DocentError(
        'conflict',
        "This session's own key cannot be revoked from this session: sign in with another admin key to revoke it",
      );
    await revokeApiKey(deps.storage, session.organization.id, key.id);
    return c.redirect('/console/keys?revoked=1', 303);
  });
  return route;
}
