/**
 * npm run eval:groups [-- --verbose]
 * Feeds the labelled questions of eval/question-groups (questions.jsonl, with held-out.jsonl interleaved),
 * in one stream, through the grouping the server uses (src/analytics/question-grouping.ts) and prints how
 * well its groups match the labels: purity, inverse purity, pairwise precision and recall (defined in
 * eval/question-groups/README.md), for the tuning part, the held-out part and all questions. Asserts
 * nothing. `--verbose` prints the groups holding tuning questions only: the held-out part stays unread
 * while the grouping is tuned.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GroupIndex, questionTerms } from '../src/analytics/question-grouping.ts';
import { ingestSite } from '../src/ingest/ingest-site.ts';
import { SiteSearch } from '../src/search/site-search.ts';
import { openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { createOrganization } from '../src/tenancy/organizations.ts';
import { createSite } from '../src/tenancy/sites.ts';
import { repoRoot } from '../src/testing/paths.ts';

interface Row {
  question: string;
  group: string;
  part: 'tuning' | 'held-out';
}

const dir = path.join(repoRoot, 'eval', 'question-groups');
const read = (name: string) =>
  fs
    .readFileSync(path.join(dir, name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { question: string; group: string });

const original = read('questions.jsonl');
const added = read('held-out.jsonl');
// The split is by label, so no topic is seen in both parts: the original labels in alphabetical order
// alternate tuning, held-out, tuning, …; every label of held-out.jsonl (written after the split, before
// any tuning) is held out.
const tuningLabels = new Set(
  [...new Set(original.map((row) => row.group))].sort().filter((_, i) => i % 2 === 0),
);
// held-out.jsonl's questions are spread evenly through questions.jsonl's order, so its topics arrive
// interleaved with the others as a site's would.
const rows: Row[] = [];
let taken = 0;
original.forEach((row, i) => {
  rows.push({ ...row, part: tuningLabels.has(row.group) ? 'tuning' : 'held-out' });
  const due = Math.floor(((i + 1) * added.length) / original.length);
  while (taken < due) {
    const extra = added[taken++];
    if (extra !== undefined) rows.push({ ...extra, part: 'held-out' });
  }
});

const arg = (name: string): number | undefined => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? undefined : Number(found.split('=')[1]);
};
const sourcesPerQuestion = arg('sources') ?? 0;
const sourcesOf: (question: string) => Promise<string[]> = await (async () => {
  if (sourcesPerQuestion === 0) return async () => [];
  const temporary = await createTemporaryDatabase('sqlite');
  const storage = await openStorage(temporary.url);
  const org = await createOrganization(storage, { name: 'eval' });
  const site = await createSite(storage, { organizationId: org.id, domain: 'eval' });
  await ingestSite(storage, site.id, path.join(repoRoot, 'docs'));
  const search = new SiteSearch(storage);
  return async (question: string) => {
    const hits = await search.search(site.id, question, { limit: sourcesPerQuestion * 4 });
    const keys: string[] = [];
    for (const hit of hits) {
      const key = arg('pages') ? hit.pagePath : `${hit.pagePath}#${hit.anchor ?? ''}`;
      if (!keys.includes(key)) keys.push(key);
      if (keys.length >= sourcesPerQuestion) break;
    }
    return keys;
  };
})();
const options: { threshold?: number; sourceWeight?: number; genericWeight?: number } = {};
if (arg('threshold') !== undefined) options.threshold = arg('threshold');
if (arg('source-weight') !== undefined) options.sourceWeight = arg('source-weight');
if (arg('generic-weight') !== undefined) options.genericWeight = arg('generic-weight');
const index = new GroupIndex(Number.POSITIVE_INFINITY, options);
let next = 0;
const assigned: string[] = [];
for (const [i, row] of rows.entries())
  assigned.push(
    index.assign(questionTerms(row.question), () => `g${next++}`, await sourcesOf(row.question))?.groupId ??
      `none${i}`,
  );

/** Predicted group → its questions (row indexes); questions without content words are groups of one. */
const clusters = new Map<string, number[]>();
assigned.forEach((groupId, i) => {
  const members = clusters.get(groupId) ?? [];
  members.push(i);
  clusters.set(groupId, members);
});
const labelOf = (i: number): string => rows[i]?.group ?? '';
const countLabels = (members: readonly number[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const i of members) counts.set(labelOf(i), (counts.get(labelOf(i)) ?? 0) + 1);
  return counts;
};
const majorityOf = new Map<string, string>();
for (const [id, members] of clusters) {
  // Ties go to the label seen first in the group.
  let bestLabel = '';
  let bestCount = 0;
  for (const [label, count] of countLabels(members))
    if (count > bestCount) {
      bestLabel = label;
      bestCount = count;
    }
  majorityOf.set(id, bestLabel);
}

interface Figures {
  questions: number;
  labels: number;
  groups: number;
  purity: number;
  inversePurity: number;
  precision: number;
  recall: number;
}

/**
 * Figures for the questions `inPart` selects, with the groups as made over the whole stream: a question
 * of the part is pure when its whole group's commonest label is its own, and a pair counts when at least
 * one of its questions is in the part (a held-out question that joined a tuning topic's group costs both).
 */
function figures(inPart: (row: Row) => boolean): Figures {
  const part = rows.map((row, i) => (inPart(row) ? i : -1)).filter((i) => i >= 0);
  const labels = new Set(part.map(labelOf));
  let pure = 0;
  for (const i of part) if (majorityOf.get(assigned[i] ?? '') === labelOf(i)) pure += 1;
  let inverse = 0;
  for (const label of labels) {
    let best = 0;
    for (const members of clusters.values())
      best = Math.max(best, members.filter((i) => labelOf(i) === label).length);
    inverse += best;
  }
  let together = 0;
  let togetherSame = 0;
  const groups = new Set<string>();
  for (const [id, members] of clusters) {
    if (members.some((i) => inPart(rows[i] as Row))) groups.add(id);
    for (let a = 0; a < members.length; a++)
      for (let b = a + 1; b < members.length; b++) {
        const x = members[a] as number;
        const y = members[b] as number;
        if (!inPart(rows[x] as Row) && !inPart(rows[y] as Row)) continue;
        together += 1;
        if (labelOf(x) === labelOf(y)) togetherSame += 1;
      }
  }
  let sameLabel = 0;
  for (const label of labels) {
    const n = part.filter((i) => labelOf(i) === label).length;
    sameLabel += (n * (n - 1)) / 2;
  }
  return {
    questions: part.length,
    labels: labels.size,
    groups: groups.size,
    purity: part.length === 0 ? 1 : pure / part.length,
    inversePurity: part.length === 0 ? 1 : inverse / part.length,
    precision: together === 0 ? 1 : togetherSame / together,
    recall: sameLabel === 0 ? 1 : togetherSame / sameLabel,
  };
}

const parts: [string, Figures][] = [
  ['tuning', figures((row) => row.part === 'tuning')],
  ['held-out', figures((row) => row.part === 'held-out')],
  ['all', figures(() => true)],
];
const fmt = (x: number) => x.toFixed(3).padStart(8);
console.log('part        questions labels  groups   purity  inv.pur  pw.prec   pw.rec');
for (const [name, f] of parts)
  console.log(
    `${name.padEnd(11)} ${String(f.questions).padStart(9)} ${String(f.labels).padStart(6)} ${String(f.groups).padStart(7)}` +
      `${fmt(f.purity)} ${fmt(f.inversePurity)} ${fmt(f.precision)} ${fmt(f.recall)}`,
  );
if (process.argv.includes('--verbose')) {
  for (const [id, members] of clusters) {
    if (!members.some((i) => rows[i]?.part === 'tuning')) continue;
    const lines = members.map((i) =>
      rows[i]?.part === 'tuning' ? `${labelOf(i)}: ${rows[i]?.question}` : '(held-out question)',
    );
    console.log(`\n${id}\n  ${lines.join('\n  ')}`);
  }
}
