/**
 * npm run eval:groups [-- --verbose]
 * Feeds the labelled questions of eval/question-groups/questions.jsonl, in file order, through the
 * grouping the server uses (src/analytics/question-grouping.ts) and prints how well its groups match the
 * labels: purity, pairwise precision and recall (defined in eval/question-groups/README.md). Asserts nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GroupIndex, questionTerms } from '../src/analytics/question-grouping.ts';
import { repoRoot } from '../src/testing/paths.ts';

const file = path.join(repoRoot, 'eval', 'question-groups', 'questions.jsonl');
const rows = fs
  .readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as { question: string; group: string });

const index = new GroupIndex();
let next = 0;
const assigned = rows.map(
  (row) => index.assign(questionTerms(row.question), () => `g${next++}`)?.groupId ?? null,
);

/** Predicted group → labels of its questions; questions left without a group (no content words) are singletons. */
const clusters = new Map<string, string[]>();
assigned.forEach((groupId, i) => {
  const key = groupId ?? `none${i}`;
  const labels = clusters.get(key) ?? [];
  labels.push(rows[i]?.group ?? '');
  clusters.set(key, labels);
});

let majority = 0;
for (const labels of clusters.values()) {
  const counts = new Map<string, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  majority += Math.max(...counts.values());
}
const pairs = (n: number) => (n * (n - 1)) / 2;
let samePredicted = 0;
let sameBoth = 0;
for (const labels of clusters.values()) {
  samePredicted += pairs(labels.length);
  const counts = new Map<string, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  for (const n of counts.values()) sameBoth += pairs(n);
}
const byLabel = new Map<string, number>();
for (const row of rows) byLabel.set(row.group, (byLabel.get(row.group) ?? 0) + 1);
let sameLabel = 0;
for (const n of byLabel.values()) sameLabel += pairs(n);
// Inverse purity: for each label, the share of its questions in the group holding most of them.
let inverse = 0;
for (const label of byLabel.keys()) {
  let best = 0;
  for (const labels of clusters.values()) best = Math.max(best, labels.filter((l) => l === label).length);
  inverse += best;
}

const fmt = (x: number) => x.toFixed(3);
console.log(`questions ${rows.length}, labelled groups ${byLabel.size}, groups made ${clusters.size}`);
console.log(`purity            ${fmt(majority / rows.length)}`);
console.log(`inverse purity    ${fmt(inverse / rows.length)}`);
console.log(`pairwise precision ${fmt(samePredicted === 0 ? 1 : sameBoth / samePredicted)}`);
console.log(`pairwise recall   ${fmt(sameLabel === 0 ? 1 : sameBoth / sameLabel)}`);
if (process.argv.includes('--verbose')) {
  const members = new Map<string, string[]>();
  assigned.forEach((groupId, i) => {
    const key = groupId ?? `none${i}`;
    const list = members.get(key) ?? [];
    list.push(`${rows[i]?.group}: ${rows[i]?.question}`);
    members.set(key, list);
  });
  for (const [id, list] of members) console.log(`\n${id}\n  ${list.join('\n  ')}`);
}
