import { type Context, Hono } from 'hono';
import type { ModelInUse } from '../../../assistant/model-provider.ts';
import {
  getSiteModelSettings,
  siteModelSettingsSchema,
  updateSiteModelSettings,
} from '../../../assistant/providers/site-model-settings.ts';
import { getIngestionJob, type IngestionJob, listIngestionJobs } from '../../../ingest/jobs.ts';
import { getGitSource, gitSourceView } from '../../../sources/git-sources.ts';
import type { Storage } from '../../../storage/database.ts';
import { IngestionBusyError, type IngestionRunner } from '../../../tenancy/ingestion-runner.ts';
import { getOrganizationSite, listSites, type Site, updateSite } from '../../../tenancy/sites.ts';
import { DocentError } from '../../errors.ts';
import { updateSiteBody } from '../admin/update-site.ts';
import type { ConsoleEnv } from './console-env.ts';
import { readForm } from './form-body.ts';
import { Csrf, Layout } from './layout.tsx';
import {
  issueField,
  issueText,
  type SettingsError,
  type SettingsFormValues,
  SiteSettingsForm,
  storedValues,
  typedValues,
} from './site-settings-form.tsx';

export interface SitesDeps {
  storage: Storage;
  ingestions: IngestionRunner;
  scriptSrc: string | null;
  modelInUse: ((siteModel: string | null) => ModelInUse) | null;
}

/** Ingestion jobs listed per site, newest first. */
const JOBS_SHOWN = 10;
/** Warnings shown per job on its page (the admin API has them all). */
const WARNINGS_SHOWN = 200;

const lines = (value: unknown): string[] =>
  typeof value === 'string'
    ? value
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
    : [];

function JobStatus(props: { job: IngestionJob }) {
  const cls = props.job.status === 'success' ? 'ok' : props.job.status === 'failure' ? 'bad' : 'warn';
  return <span class={`badge ${cls}`}>{props.job.status.replace('_', ' ')}</span>;
}

/** Sites: their settings, ingestion jobs with warnings, and "re-ingest now" with live progress. */
export function sitesScreen(deps: SitesDeps): Hono<ConsoleEnv> {
  const route = new Hono<ConsoleEnv>();

  const siteOr404 = async (organizationId: string, domain: string): Promise<Site> => {
    const site = await getOrganizationSite(deps.storage, organizationId, domain);
    if (!site) throw new DocentError('not_found', `No site "${domain}" in this organization`);
    return site;
  };

  const detail = async (
    c: Context<ConsoleEnv>,
    site: Site,
    refused?: { errors: SettingsError[]; typed: SettingsFormValues },
  ) => {
    const session = c.get('session');
    const [settings, jobs, gitRow] = await Promise.all([
      getSiteModelSettings(deps.storage, site.id),
      listIngestionJobs(deps.storage, site.id, JOBS_SHOWN),
      getGitSource(deps.storage, site.id),
    ]);
    const git = gitRow === undefined ? null : gitSourceView(gitRow);
    const source =
      git !== null
        ? `Git: ${git.url}${git.branch ? ` (${git.branch})` : ''}${git.subdir ? `, folder ${git.subdir}` : ''}${git.commit ? `, at ${git.commit.slice(0, 12)}` : ''}`
        : `Docs folder: ${site.docs_dir ?? 'none set (use the CLI or the admin API)'}`;
    const ingestible = git !== null || site.docs_dir !== null;
    return c.html(
      <Layout title={`Site ${site.domain}`} session={session} active="sites" scriptSrc={deps.scriptSrc}>
        {c.req.query('saved') ? <div class="notice">Settings saved.</div> : null}
        <h2>Settings</h2>
        <SiteSettingsForm
          site={site}
          values={
            refused?.typed ??
            storedValues(
              site,
              settings ?? { model: null, instructions: null, starterQuestions: null, modelOptions: null },
            )
          }
          csrf={<Csrf session={session} />}
          errors={refused?.errors ?? []}
          inUse={deps.modelInUse?.(settings?.model ?? null) ?? null}
        />
        <h2>Ingestion</h2>
        <p class="muted">{source}</p>
        <form method="post" action={`/console/sites/${site.domain}/ingestions`}>
          <Csrf session={session} />
          <button
            class="primary"
            type="submit"
            disabled={!ingestible}
            title={ingestible ? undefined : 'The site has no docs folder or git repository yet'}
          >
            Re-ingest now
          </button>
        </form>
        <table style="margin-top:.8rem">
          <thead>
            <tr>
              <th>Started</th>
              <th>Status</th>
              <th>Pages</th>
              <th>Warnings</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr>
                <td>
                  <a href={`/console/sites/${site.domain}/jobs/${job.id}`}>
                    {job.createdAt.replace('T', ' ').slice(0, 19)}
                  </a>
                </td>
                <td>
                  <JobStatus job={job} />
                </td>
                <td>
                  {job.counts
                    ? `${job.counts.pages} (+${job.counts.added} ~${job.counts.updated} −${job.counts.removed})`
                    : ''}
                </td>
                <td>{job.warnings.length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Layout>,
      refused === undefined ? 200 : 400,
    );
  };

  route.get('/console/sites', async (c) => {
    const session = c.get('session');
    const sites = await listSites(deps.storage, session.organization.id);
    return c.html(
      <Layout title="Sites" session={session} active="sites" scriptSrc={deps.scriptSrc}>
        <table>
          <thead>
            <tr>
              <th>Domain</th>
              <th>Name</th>
              <th>Base URL</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {sites.map((site) => (
              <tr>
                <td>
                  <a href={`/console/sites/${site.domain}`}>{site.domain}</a>
                </td>
                <td>{site.name}</td>
                <td>{site.base_url ?? <span class="muted">page view</span>}</td>
                <td>{site.created_at.slice(0, 10)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Layout>,
    );
  });

  route.get('/console/sites/:domain', async (c) =>
    detail(c, await siteOr404(c.get('session').organization.id, c.req.param('domain'))),
  );

  route.post('/console/sites/:domain/settings', async (c) => {
    const site = await siteOr404(c.get('session').organization.id, c.req.param('domain'));
    const form = await readForm(c);
    const text = (key: string) => (typeof form[key] === 'string' ? (form[key] as string).trim() : '');
    const siteFields = updateSiteBody.safeParse({
      name: text('name'),
      baseUrl: text('baseUrl') === '' ? null : text('baseUrl'),
      // As pasted from the address bar ("https://docs.example.com/"): the schema stores the origin.
      allowedOrigins: lines(form.allowedOrigins),
    });
    const modelFields = siteModelSettingsSchema.safeParse({
      model: text('model') === '' ? null : text('model'),
      instructions: text('instructions') === '' ? null : text('instructions'),
      starterQuestions: lines(form.starterQuestions).length === 0 ? null : lines(form.starterQuestions),
      modelOptions: {
        ...(text('temperature') === '' ? {} : { temperature: Number(text('temperature')) }),
        ...(text('maxOutputTokens') === '' ? {} : { maxOutputTokens: Number(text('maxOutputTokens')) }),
        ...(text('reasoningEffort') === '' ? {} : { reasoningEffort: text('reasoningEffort') }),
      },
    });
    const errors = [siteFields, modelFields].flatMap((result) =>
      result.success
        ? []
        : result.error.issues.map((i) => ({ field: issueField(i.path), text: issueText(i.path, i.message) })),
    );
    if (!siteFields.success || !modelFields.success)
      return detail(c, site, { errors, typed: typedValues(form) });
    const fields = siteFields.data;
    await updateSite(deps.storage, site.id, {
      ...(fields.name !== undefined ? { name: fields.name } : {}),
      ...(fields.baseUrl !== undefined ? { base_url: fields.baseUrl } : {}),
      ...(fields.allowedOrigins !== undefined
        ? { allowed_origins: JSON.stringify(fields.allowedOrigins) }
        : {}),
    });
    await updateSiteModelSettings(deps.storage, site.id, modelFields.data);
    return c.redirect(`/console/sites/${site.domain}?saved=1`, 303);
  });

  route.post('/console/sites/:domain/ingestions', async (c) => {
    const site = await siteOr404(c.get('session').organization.id, c.req.param('domain'));
    const git = await getGitSource(deps.storage, site.id);
    if (git && deps.ingestions.git === null)
      throw new DocentError('unavailable', 'This server has no data folder for git clones');
    if (!git && site.docs_dir === null)
      throw new DocentError('invalid_request', `Site "${site.domain}" has no docs folder or git repository`);
    try {
      const job = git
        ? await deps.ingestions.startGit(deps.storage, site.id)
        : await deps.ingestions.start(deps.storage, site.id, site.docs_dir as string);
      return c.redirect(`/console/sites/${site.domain}/jobs/${job.id}`, 303);
    } catch (error) {
      if (error instanceof IngestionBusyError)
        return c.redirect(`/console/sites/${site.domain}/jobs/${error.jobId}`, 303);
      throw error;
    }
  });

  const jobOf = async (organizationId: string, domain: string, id: string) => {
    const site = await siteOr404(organizationId, domain);
    const job = await getIngestionJob(deps.storage, id);
    if (!job || job.siteId !== site.id) throw new DocentError('not_found', `No ingestion ${id} of this site`);
    return { site, job, progress: deps.ingestions.progress(job.id) ?? null };
  };

  route.get('/console/sites/:domain/jobs/:id{[^/]+\\.json}', async (c) => {
    const id = c.req.param('id').replace(/\.json$/, '');
    const { job, progress } = await jobOf(c.get('session').organization.id, c.req.param('domain'), id);
    return c.json({
      status: job.status,
      progress,
      counts: job.counts,
      warnings: job.warnings.length,
      error: job.error,
    });
  });

  route.get('/console/sites/:domain/jobs/:id', async (c) => {
    const session = c.get('session');
    const { site, job, progress } = await jobOf(
      session.organization.id,
      c.req.param('domain'),
      c.req.param('id'),
    );
    const running = job.status === 'queued' || job.status === 'in_progress';
    return c.html(
      <Layout
        title={`Ingestion of ${site.domain}`}
        session={session}
        active="sites"
        scriptSrc={deps.scriptSrc}
      >
        <p>
          <a href={`/console/sites/${site.domain}`}>← {site.domain}</a>
        </p>
        <div
          class="card"
          data-job-status={running ? `/console/sites/${site.domain}/jobs/${job.id}.json` : undefined}
          aria-live="polite"
        >
          <div class="label">Status</div>
          <div class="value" data-job-field="status">
            {job.status.replace('_', ' ')}
          </div>
          <div data-job-field="progress">
            {progress
              ? `${progress.done} of ${progress.total} files read`
              : running
                ? 'waiting to start'
                : ''}
          </div>
          <div data-job-field="counts">
            {job.counts
              ? `${job.counts.pages} pages: ${job.counts.added} added, ${job.counts.updated} updated, ${job.counts.removed} removed, ${job.counts.unchanged} unchanged`
              : ''}
          </div>
          {job.error ? <div class="badge bad">{job.error}</div> : null}
        </div>
        <h2>Warnings ({job.warnings.length})</h2>
        {running ? <p class="muted">Shown when the ingestion ends; this page reloads itself then.</p> : null}
        <table>
          <thead>
            <tr>
              <th>File</th>
              <th>Line</th>
              <th>Warning</th>
            </tr>
          </thead>
          <tbody>
            {job.warnings.slice(0, WARNINGS_SHOWN).map((w) => (
              <tr>
                <td class="word">{w.file}</td>
                <td class="word">{w.line ?? ''}</td>
                <td>{w.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Layout>,
    );
  });
  return route;
}
