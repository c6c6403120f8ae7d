import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { type IngestionOutcome, IngestionRunner } from './ingestion-runner.ts';
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
});
