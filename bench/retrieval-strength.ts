/**
 * npm run bench:retrieval-strength
 * How the retrieval-strength signal that marks an answer "unanswered" (src/analytics/answered.ts) was
 * calibrated: each eval set of ../shared/eval is ingested into a temporary SQLite database, then every
 * question is searched as the assistant does (the endpoint's default 5 chunks) on its own site
 * (questions the docs answer) and on the other set's site (questions the docs do not cover: Claude API
 * questions asked of a TV manual and the other way round). Prints, per threshold, the share of each
 * that would be marked weak. Asserts nothing.
 */
import path from 'node:path';
import { ingestSite } from '../src/ingest/ingest-site.ts';
import { readEvalSet } from '../src/search/eval-set.ts';
import { SiteSearch } from '../src/search/site-search.ts';
import { openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { createOrganization } from '../src/tenancy/organizations.ts';
import { createSite } from '../src/tenancy/sites.ts';
import { repoRoot } from '../src/testing/paths.ts';

const SETS = ['claude-docs', 'tv-manual'];
/** The assistant's default `retrievalPageSize`. */
const RETRIEVED = 5;
const THRESHOLDS = [0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8];

const temporary = await createTemporaryDatabase('sqlite');
const storage = await openStorage(temporary.url);
try {
  const org = await createOrganization(storage, { name: 'calibration' });
  const search = new SiteSearch(storage);
  const sets = [];
  for (const name of SETS) {
    const set = await readEvalSet(path.join(repoRoot, '..', 'shared', 'eval', name));
    const site = await createSite(storage, { organizationId: org.id, domain: name });
    await ingestSite(storage, site.id, set.docsDir);
    sets.push({ name, set, site });
  }
  const strength = async (siteId: string, question: string): Promise<number> => {
    const results = await search.search(siteId, question, { limit: RETRIEVED });
    return Math.max(0, ...results.map((r) => r.coverage));
  };
  const rows: { label: string; scores: number[] }[] = [];
  for (const own of sets) {
    const other = sets.find((s) => s !== own);
    if (other === undefined) continue;
    const covered: number[] = [];
    for (const q of own.set.questions) covered.push(await strength(own.site.id, q.question));
    const uncovered: number[] = [];
    for (const q of other.set.questions) uncovered.push(await strength(own.site.id, q.question));
    rows.push({ label: `${own.name} questions on ${own.name}`, scores: covered });
    rows.push({ label: `${other.name} questions on ${own.name}`, scores: uncovered });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  console.log(`retrieval strength = best coverage among the top ${RETRIEVED} chunks\n`);
  console.log(`| questions | n | median | ${THRESHOLDS.map((t) => `weak < ${t}`).join(' | ')} |`);
  console.log(`|---|---|---|${THRESHOLDS.map(() => '---').join('|')}|`);
  for (const row of rows) {
    const weak = THRESHOLDS.map((t) => {
      const share = row.scores.filter((s) => s < t).length / row.scores.length;
      return `${(share * 100).toFixed(1)} %`;
    });
    console.log(
      `| ${row.label} | ${row.scores.length} | ${median(row.scores).toFixed(2)} | ${weak.join(' | ')} |`,
    );
  }
} finally {
  await storage.close();
  await temporary.remove();
}
