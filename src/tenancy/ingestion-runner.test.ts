import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.ts';
import { DomainError } from '../errors/domain-error.ts';
import { deleteGitSource, setGitSource } from '../sources/git-sources.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import {
  IngestionLimitError,
  type IngestionOutcome,
  IngestionRunner,
  MAX_RUNNING_INGESTIONS_PER_ORGANIZATION,
} from './ingestion-runner.ts';
import { createOrganization } from './organizations.ts';
import { createSite } from './sites.ts';

describe('ingestion runner listeners', () => {
  let database: TestDatabase;
  let docs: string;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    database = await createTestDatabase('sqlite');
    docs = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-runner-'));
    fs.writeFileSync(path.join(docs, 'index.md'), '# Index\n\nWidgets.\n');
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await database?.drop();
    fs.rmSync(docs, { recursive: true, force: true });
  });

  it('tells every listener even when one throws, and leaves no rejection behind', async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'o' });
    const site = await createSite(storage, { organizationId: org.id, domain: 'runner' });
    const runner = new IngestionRunner();
    const heard: IngestionOutcome['status'][] = [];
    runner.onSettled(() => {
      throw new Error('a broken listener');
    });
    runner.onSettled((outcome) => heard.push(outcome.status));
    await runner.start(storage, site.id, docs);
    await runner.idle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual(['success']);
    expect(unhandled).toEqual([]);
  });

  it('refuses a git ingestion of a site whose source is gone as not_found (4xx), not a bare Error (500)', async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'o' });
    // The admin API read the site's git source, then a DELETE of the site (or an unset of its source)
    // committed before the runner read it again.
    const site = await createSite(storage, { organizationId: org.id, domain: 'source-gone' });
    const runner = new IngestionRunner(undefined, null, {
      dataDir: docs,
      env: loadConfig().git.env,
      signal: new AbortController().signal,
      serverCredentialsForApiSources: false,
    });
    const attempt = runner.startGit(storage, site.id);
    await expect(attempt).rejects.toBeInstanceOf(DomainError);
    await expect(attempt).rejects.toMatchObject({ kind: 'not_found' });
    expect(runner.runningJob(site.id)).toBeUndefined();
  });
});

describe('ingestions running at once', () => {
  let database: TestDatabase;
  let temp: string;
  // A git remote that takes connections and never answers: each ingestion of it runs until stopped.
  // It reads what is sent (and drops it), so that a client closing is seen and the server can close.
  const silent = net.createServer((socket) => socket.resume());
  let url: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-runner-cap-'));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/docs.git`;
  });
  /** A runner that clones into `temp`; aborting `signal` stops its git processes. */
  const gitRunner = (signal: AbortSignal) =>
    new IngestionRunner(undefined, null, {
      dataDir: temp,
      env: loadConfig().git.env,
      signal,
      serverCredentialsForApiSources: false,
    });
  /** A site of `organizationId` whose git source is `remote` (by default the silent one). */
  const gitSite = async (organizationId: string, domain: string, remote = url): Promise<string> => {
    const site = await createSite(database.storage, { organizationId, domain });
    await setGitSource(database.storage, site.id, {
      url: remote,
      branch: null,
      subdir: '',
      pollMinutes: null,
      setBy: 'api',
    });
    return site.id;
  };
  /** A remote that holds its connections until told to drop them: an ingestion of it then fails. */
  const holdingRemote = async () => {
    const held = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      held.add(socket);
      socket.on('close', () => held.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const drop = async (): Promise<void> => {
      for (const socket of held) socket.destroy();
    };
    const address = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/docs.git`;
    return { held, drop, address, close: () => new Promise((resolve) => server.close(resolve)) };
  };
  afterAll(async () => {
    await new Promise((resolve) => silent.close(resolve));
    await database?.drop();
    fs.rmSync(temp, { recursive: true, force: true });
  });

  it('are capped per organization, not per server: one more is refused, another organization’s starts', async () => {
    const { storage } = database;
    const stop = new AbortController();
    const runner = gitRunner(stop.signal);
    const siteOf = (organizationId: string, domain: string): Promise<string> =>
      gitSite(organizationId, domain);
    const busy = (await createOrganization(storage, { name: 'busy' })).id;
    const other = (await createOrganization(storage, { name: 'other' })).id;
    try {
      for (let i = 0; i < MAX_RUNNING_INGESTIONS_PER_ORGANIZATION; i++)
        await runner.startGit(storage, await siteOf(busy, `busy-${i}`));
      const refused = await runner
        .startGit(storage, await siteOf(busy, 'busy-more'))
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(IngestionLimitError);
      expect((refused as IngestionLimitError).retryAfterSeconds).toBe(30);
      // A push to a site over the cap is not refused (hosts do not redeliver): it waits for a slot.
      const pushed = await siteOf(busy, 'busy-pushed');
      expect(await runner.requestGit(storage, pushed)).toEqual({ waiting: true });
      expect(runner.runningJob(pushed)).toBeUndefined();
      await expect(runner.startGit(storage, await siteOf(other, 'other-0'))).resolves.toMatchObject({
        status: 'queued',
      });
      // What a request checks before it changes a site's folder, so that it is refused before the change.
      expect(() => runner.refuseOverLimit(busy)).toThrow(IngestionLimitError);
      expect(() => runner.refuseOverLimit(other)).not.toThrow();
    } finally {
      stop.abort();
      await runner.idle();
    }
  });

  it('keeps the run a push was promised (202, after) when the site’s run ends: it takes the slot first', async () => {
    const { storage } = database;
    const stop = new AbortController();
    const runner = gitRunner(stop.signal);
    const dropping = await holdingRemote();
    const others = await holdingRemote();
    const droppingUrl = dropping.address;
    const url = others.address;
    const organizationId = (await createOrganization(storage, { name: 'pushed' })).id;
    const siteOf = (domain: string, remote: string): Promise<string> =>
      gitSite(organizationId, domain, remote);
    try {
      const pushed = await siteOf('pushed-0', droppingUrl);
      const first = await runner.startGit(storage, pushed);
      for (let i = 1; i < MAX_RUNNING_INGESTIONS_PER_ORGANIZATION; i++)
        await runner.startGit(storage, await siteOf(`pushed-${i}`, url));
      // A push while the site's run goes on: promised a run after it.
      expect(await runner.requestGit(storage, pushed)).toEqual({ jobId: first.id, after: true });
      // When that run ends, another site of the organization is being started (its start reads the site).
      const latecomer = await siteOf('pushed-late', url);
      const refused: unknown[] = [];
      let asked = false;
      runner.onSettled(() => {
        if (asked) return;
        asked = true;
        runner.startGit(storage, latecomer).catch((error: unknown) => refused.push(error));
      });
      await vi.waitFor(() => expect(dropping.held.size).toBeGreaterThan(0), { timeout: 10_000 });
      await dropping.drop();
      // The promised run started, and the latecomer was the one over the cap.
      await vi.waitFor(
        () => {
          expect(refused).toHaveLength(1);
          expect(runner.runningJob(pushed)).toBeDefined();
          expect(runner.runningJob(pushed)).not.toBe(first.id);
        },
        { timeout: 20_000 },
      );
      expect(refused[0]).toBeInstanceOf(IngestionLimitError);
      expect(runner.runningJob(latecomer)).toBeUndefined();
    } finally {
      stop.abort();
      await runner.idle();
      for (const remote of [dropping, others]) {
        await remote.drop();
        await remote.close();
      }
    }
  });
  it('starts a push that waited for its organization’s slot when one of its runs ends, and drops it on shutdown', async () => {
    const { storage } = database;
    const stop = new AbortController();
    const runner = gitRunner(stop.signal);
    const holding = await holdingRemote();
    const { held } = holding;
    const heldUrl = holding.address;
    const organizationId = (await createOrganization(storage, { name: 'waiting' })).id;
    const siteOf = (domain: string, remote: string): Promise<string> =>
      gitSite(organizationId, domain, remote);
    try {
      // One run on a remote this test can cut, the others on the silent one.
      const ending = await siteOf('waiting-0', heldUrl);
      await runner.startGit(storage, ending);
      for (let i = 1; i < MAX_RUNNING_INGESTIONS_PER_ORGANIZATION; i++)
        await runner.startGit(storage, await siteOf(`waiting-${i}`, url));
      const first = await siteOf('waiting-first', url);
      const second = await siteOf('waiting-second', url);
      expect(await runner.requestGit(storage, first)).toEqual({ waiting: true });
      expect(await runner.requestGit(storage, second)).toEqual({ waiting: true });
      await vi.waitFor(() => expect(held.size).toBeGreaterThan(0), { timeout: 10_000 });
      for (const socket of held) socket.destroy();
      // The oldest push takes the slot; the other still waits, within the cap.
      await vi.waitFor(() => expect(runner.runningJob(first)).toBeDefined(), { timeout: 20_000 });
      expect(runner.runningJob(ending)).toBeUndefined();
      expect(runner.runningJob(second)).toBeUndefined();
      expect(() => runner.refuseOverLimit(organizationId)).toThrow(IngestionLimitError);
      // A server shutting down starts no waiting push.
      runner.cancelQueued();
      stop.abort();
      await runner.idle();
      expect(runner.runningJob(second)).toBeUndefined();
    } finally {
      stop.abort();
      await runner.idle();
      await holding.drop();
      await holding.close();
    }
  });
  /** An organization with its cap of git runs: the first on a remote `cut` ends, the others never end. */
  const fullOrganization = async (name: string, runner: IngestionRunner) => {
    const { storage } = database;
    const holding = await holdingRemote();
    const { held } = holding;
    const heldUrl = holding.address;
    const organizationId = (await createOrganization(storage, { name })).id;
    const siteOf = (domain: string, remote = url): Promise<string> => gitSite(organizationId, domain, remote);
    const ending = await siteOf(`${name}-0`, heldUrl);
    await runner.startGit(storage, ending);
    for (let i = 1; i < MAX_RUNNING_INGESTIONS_PER_ORGANIZATION; i++)
      await runner.startGit(storage, await siteOf(`${name}-${i}`));
    return {
      organizationId,
      ending,
      siteOf,
      /** Ends the first run (its git fetch loses its connection). */
      cut: async () => {
        await vi.waitFor(() => expect(held.size).toBeGreaterThan(0), { timeout: 10_000 });
        for (const socket of held) socket.destroy();
        await vi.waitFor(() => expect(runner.runningJob(ending)).toBeUndefined(), { timeout: 20_000 });
      },
      close: async () => {
        await holding.drop();
        await holding.close();
      },
    };
  };

  it('passes the slot of a waiting push that cannot start (its git source removed) to the next one', async () => {
    const { storage } = database;
    const stop = new AbortController();
    const runner = gitRunner(stop.signal);
    const full = await fullOrganization('stalled', runner);
    try {
      const removed = await full.siteOf('stalled-removed');
      const next = await full.siteOf('stalled-next');
      expect(await runner.requestGit(storage, removed)).toEqual({ waiting: true });
      expect(await runner.requestGit(storage, next)).toEqual({ waiting: true });
      await deleteGitSource(storage, removed);
      await full.cut();
      // `removed` took the slot and failed to start; the other runs never end, so only that start's
      // failure can start `next`.
      await vi.waitFor(() => expect(runner.runningJob(next)).toBeDefined(), { timeout: 10_000 });
      expect(runner.runningJob(removed)).toBeUndefined();
    } finally {
      stop.abort();
      await runner.idle();
      await full.close();
    }
  });

  it('queues no push answered after a shutdown dropped the waiting ones', async () => {
    const { storage } = database;
    const stop = new AbortController();
    const runner = gitRunner(stop.signal);
    const full = await fullOrganization('late', runner);
    try {
      const late = await full.siteOf('late-pushed');
      // The push is being answered (its site read) when the shutdown drops what waits.
      const answered = runner.requestGit(storage, late);
      runner.cancelQueued();
      expect(await answered).toEqual({ waiting: true });
      await full.cut();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(runner.runningJob(late)).toBeUndefined();
    } finally {
      stop.abort();
      await runner.idle();
      await full.close();
    }
  });
});
