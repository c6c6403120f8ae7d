/**
 * One case of `npm run bench:hostile`, in its own process so that its peak RSS is its own: writes the
 * folder, ingests it into a fresh SQLite database (page parsing in worker threads, as the server does)
 * and prints one JSON line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ingestSite } from '../src/ingest/ingest-site.ts';
import { openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { createOrganization } from '../src/tenancy/organizations.ts';
import { createSite } from '../src/tenancy/sites.ts';
import { HOSTILE_FOLDERS } from './lib/hostile-folders.ts';
import { processMemory } from './lib/processes.ts';

const folder = HOSTILE_FOLDERS.find((f) => f.name === process.argv[2]);
if (!folder) throw new Error(`unknown case ${process.argv[2]}`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-hostile-'));
folder.write(dir);
const temporary = await createTemporaryDatabase('sqlite');
const storage = await openStorage(temporary.url);
try {
  const org = await createOrganization(storage, { name: 'hostile' });
  const site = await createSite(storage, { organizationId: org.id, domain: 'hostile' });
  const started = performance.now();
  let outcome: Record<string, unknown>;
  try {
    const result = await ingestSite(storage, site.id, dir);
    const chunks = await storage.db
      .selectFrom('chunks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('site_id', '=', site.id)
      .executeTakeFirstOrThrow();
    outcome = {
      status: 'success',
      pages: result.counts.pages,
      chunks: Number(chunks.n),
      warnings: result.warnings.map((w) => `${w.file}: ${w.message}`),
    };
  } catch (error) {
    outcome = { status: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ ...outcome, seconds, peakRssBytes: processMemory(process.pid)?.peak }));
} finally {
  await storage.close();
  await temporary.remove();
  fs.rmSync(dir, { recursive: true, force: true });
}
