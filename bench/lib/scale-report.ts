/**
 * The tables `npm run bench:scale` prints: one per part (the large site, the 100,000-page variant, the
 * many sites), each metric with the current tree's figure, the baseline's from the same run (or why
 * there is none), the change, and the issue's bar where it sets one (printed, not asserted).
 */

import type { BigSiteResult } from './scale-big-site.ts';
import type { BigFolder } from './scale-corpus.ts';
import type { Distribution } from './scale-http.ts';
import type { ManySitesResult, RoundResult } from './scale-many-sites.ts';

export type Measured<T> = T | { skipped: string } | { failed: string };

export const isSkipped = <T>(m: Measured<T> | undefined): m is { skipped: string } =>
  m !== undefined && typeof m === 'object' && m !== null && 'skipped' in m;
export const isFailed = <T>(m: Measured<T> | undefined): m is { failed: string } =>
  m !== undefined && typeof m === 'object' && m !== null && 'failed' in m;
const got = <T>(m: Measured<T> | undefined): T | undefined =>
  m === undefined || isSkipped(m) || isFailed(m) ? undefined : m;

const MiB = 2 ** 20;
const fmt = {
  mib: (b: number) => (Number.isFinite(b) ? `${(b / MiB).toFixed(0)} MiB` : '—'),
  kib: (b: number) => (Number.isFinite(b) ? `${(b / 1024).toFixed(1)} KiB` : '—'),
  s: (s: number) => (Number.isFinite(s) ? `${s.toFixed(2)} s` : '—'),
  ms: (ms: number) =>
    Number.isFinite(ms) ? (ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`) : '—',
  n: (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—'),
  dist: (d: Distribution) =>
    d.n === 0 ? '—' : `${fmt.ms(d.p50)} / ${fmt.ms(d.p99)} / ${fmt.ms(d.max)} (n=${d.n})`,
};

interface Row {
  metric: string;
  current: string;
  baseline: string;
  change: string;
  bar: string;
}

/** "3.2× lower" style: how the current figure compares with the baseline's. */
function change(current: number | undefined, baseline: number | undefined, lowerIsBetter: boolean): string {
  if (
    current === undefined ||
    baseline === undefined ||
    !Number.isFinite(current) ||
    !Number.isFinite(baseline)
  )
    return '';
  if (current <= 0 || baseline <= 0) return '';
  const ratio = baseline / current;
  if (Math.abs(ratio - 1) < 0.05) return 'same';
  if (lowerIsBetter) return ratio > 1 ? `${ratio.toFixed(1)}× lower` : `${(1 / ratio).toFixed(1)}× higher`;
  return ratio < 1 ? `${(1 / ratio).toFixed(1)}× higher` : `${ratio.toFixed(1)}× lower`;
}

function table(title: string, rows: Row[], notes: string[]): string {
  const lines = [
    `### ${title}`,
    '',
    '| metric | current | baseline | change | bar (issue #21) |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.metric} | ${r.current} | ${r.baseline} | ${r.change} | ${r.bar} |`),
  ];
  if (notes.length > 0) lines.push('', ...notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

const why = <T>(m: Measured<T> | undefined, name: string): string | null => {
  if (m === undefined) return null;
  if (isSkipped(m)) return `${name}: not run (${m.skipped})`;
  if (isFailed(m)) return `${name}: failed (${m.failed})`;
  return null;
};

export function bigSiteTable(
  title: string,
  folder: BigFolder | undefined,
  currentM: Measured<BigSiteResult> | undefined,
  baselineM: Measured<BigSiteResult> | undefined,
  bars: { coldUnder1s: boolean },
): string {
  const c = got(currentM);
  const b = got(baselineM);
  const rows: Row[] = [];
  const add = (
    metric: string,
    value: (r: BigSiteResult) => number,
    format: (n: number) => string,
    lowerIsBetter: boolean | null,
    bar: (cur: number, base: number | undefined) => string = () => '',
  ) => {
    const cv = c ? value(c) : undefined;
    const bv = b ? value(b) : undefined;
    rows.push({
      metric,
      current: cv === undefined ? '—' : format(cv),
      baseline: bv === undefined ? '—' : format(bv),
      change: lowerIsBetter === null ? '' : change(cv, bv, lowerIsBetter),
      bar: cv === undefined ? '' : bar(cv, bv),
    });
  };
  const yes = (ok: boolean) => (ok ? 'met' : 'NOT met');
  rows.push({
    metric: `pages stored (chunks)${folder ? `, from ${fmt.n(folder.pageFiles)} Markdown/MDX files` : ''}`,
    current: c ? `${fmt.n(c.pages)} (${fmt.n(c.chunks)})` : '—',
    baseline: b ? `${fmt.n(b.pages)} (${fmt.n(b.chunks)})` : '—',
    change: '',
    bar: '',
  });
  add('ingest (`docent init`) wall time', (r) => r.ingest.seconds, fmt.s, true);
  add(
    'ingest pages/s',
    (r) => r.ingest.pagesPerSecond,
    (n) => n.toFixed(0),
    false,
    (cur, base) => (base === undefined ? '≥ 3× today' : `≥ 3× today: ${yes(cur >= 3 * base)}`),
  );
  add(
    'ingest peak RSS',
    (r) => r.ingest.peakRssBytes,
    fmt.mib,
    true,
    (cur) => `< 1 GB: ${yes(cur < 1e9)}`,
  );
  add('database on disk after ingest (file + wal + shm)', (r) => r.diskAfterIngest.total, fmt.mib, true);
  add('database on disk at the end', (r) => r.diskAtEnd.total, fmt.mib, true);
  add('server start → listening', (r) => r.server.startSeconds, fmt.s, true);
  add('server RSS idle (before any question)', (r) => r.server.idleRssBytes, fmt.mib, true);
  add(
    'cold question: first text part',
    (r) => r.cold.firstTextMs,
    fmt.ms,
    true,
    (cur) => (bars.coldUnder1s ? `< 1 s: ${yes(cur < 1000)}` : ''),
  );
  add('cold question: end of answer', (r) => r.cold.totalMs, fmt.ms, true);
  add('RSS after the cold question', (r) => r.cold.rssAfterBytes, fmt.mib, true);
  add('RSS peak during the cold question', (r) => r.cold.rssPeakDuringBytes, fmt.mib, true);
  add(
    'RSS per page (RSS after ÷ pages)',
    (r) => r.cold.rssPerPageBytes,
    fmt.kib,
    true,
    (cur, base) => (base === undefined ? '≥ 4× lower' : `≥ 4× lower: ${yes(base / cur >= 4)}`),
  );
  add('loaded RSS per page ((after − before) ÷ pages)', (r) => r.cold.loadedRssPerPageBytes, fmt.kib, true);
  add(
    '/healthz during the cold load p99',
    (r) => r.cold.healthz.p99,
    fmt.ms,
    true,
    (cur) => `< 50 ms: ${yes(cur < 50)}`,
  );
  rows.push({
    metric: '/healthz during the cold load p50 / p99 / max',
    current: c ? fmt.dist(c.cold.healthz) : '—',
    baseline: b ? fmt.dist(b.cold.healthz) : '—',
    change: '',
    bar: '',
  });
  rows.push({
    metric: 'small site answer during the cold load p50 / p99 / max',
    current: c ? fmt.dist(c.cold.smallSite) : '—',
    baseline: b ? fmt.dist(b.cold.smallSite) : '—',
    change: change(c?.cold.smallSite.p99, b?.cold.smallSite.p99, true),
    bar: 'not delayed',
  });
  add('warm answer p50 (end to end)', (r) => r.warm.totalMs.p50, fmt.ms, true);
  add('warm answer p99 (end to end)', (r) => r.warm.totalMs.p99, fmt.ms, true);
  add('warm first text p50', (r) => r.warm.firstTextMs.p50, fmt.ms, true);
  add('RSS after the warm questions', (r) => r.warm.rssAfterBytes, fmt.mib, true);
  add(
    'CLI `docent search` wall time, 1st call',
    (r) => r.cliSearch.wallSeconds[0] ?? Number.NaN,
    fmt.s,
    true,
  );
  add(
    'CLI `docent search` wall time, 2nd call',
    (r) => r.cliSearch.wallSeconds[1] ?? Number.NaN,
    fmt.s,
    true,
  );
  add('CLI `docent search` peak RSS', (r) => r.cliSearch.peakRssBytes, fmt.mib, true);
  const notes: string[] = [];
  if (folder)
    notes.push(
      `data: ${fmt.n(folder.pageFiles)} Markdown/MDX files (${(folder.markdownBytes / 1e6).toFixed(0)} MB; ${(folder.totalBytes / 1e6).toFixed(0)} MB with the specs and other files): ` +
        `${folder.copies} whole ${folder.copies === 1 ? 'copy' : 'copies'} of the five corpora${folder.partialPages > 0 ? ` + ${folder.partialPages} pages of one more` : ''}, one plain folder`,
    );
  for (const line of [why(currentM, 'current'), why(baselineM, 'baseline')]) if (line) notes.push(line);
  for (const r of [c, b]) {
    if (!r) continue;
    if (r.cold.error) notes.push(`${r.tree}: the cold question ended with an error: ${r.cold.error}`);
    if (r.cold.cited === 0) notes.push(`${r.tree}: the cold answer cited nothing`);
    if (r.warm.errors > 0 || r.warm.uncited > 0)
      notes.push(
        `${r.tree}: warm questions: ${r.warm.errors} errors, ${r.warm.uncited} answers without citations`,
      );
    if (r.cold.healthz.failures > 0 || r.cold.smallSite.failures > 0)
      notes.push(
        `${r.tree}: failed polls during the cold load: /healthz ${r.cold.healthz.failures}, small site ${r.cold.smallSite.failures}`,
      );
    const messages = [...new Set(r.indexLog.map((e) => String(e.msg)))];
    if (messages.length > 0)
      notes.push(`${r.tree}: server log about the index: ${messages.slice(0, 8).join('; ')}`);
  }
  return table(title, rows, notes);
}

export function manySitesTable(
  title: string,
  currentM: Measured<ManySitesResult> | undefined,
  baselineM: Measured<ManySitesResult> | undefined,
): string {
  const c = got(currentM);
  const b = got(baselineM);
  const rows: Row[] = [];
  const add = (
    metric: string,
    value: (r: ManySitesResult) => number | undefined,
    format: (n: number) => string,
    lowerIsBetter: boolean | null,
  ) => {
    const cv = c ? value(c) : undefined;
    const bv = b ? value(b) : undefined;
    rows.push({
      metric,
      current: cv === undefined ? '—' : format(cv),
      baseline: bv === undefined ? '—' : format(bv),
      change: lowerIsBetter === null ? '' : change(cv, bv, lowerIsBetter),
      bar: '',
    });
  };
  add('sites', (r) => r.sites, fmt.n, null);
  add('pages in all', (r) => r.pages, fmt.n, null);
  add('writing them (one process, library) wall time', (r) => r.write.seconds, fmt.s, true);
  add(
    'writing them pages/s',
    (r) => r.write.pagesPerSecond,
    (n) => n.toFixed(0),
    false,
  );
  add('writer peak RSS', (r) => r.write.peakRssBytes, fmt.mib, true);
  rows.push({
    metric: 'how the sites were written',
    current: c ? writerCell(c) : '—',
    baseline: b ? writerCell(b) : '—',
    change: '',
    bar: '',
  });
  rows.push({
    metric: 'copied sites checked against a real ingestion',
    current: c ? checkCell(c) : '—',
    baseline: b ? checkCell(b) : '—',
    change: '',
    bar: 'identical rows',
  });
  add('database on disk', (r) => r.disk.total, fmt.mib, true);
  add('DOCENT_INDEX_CACHE_MB given to the server', (r) => r.cacheMb, fmt.n, null);
  add('server RSS idle', (r) => r.server.idleRssBytes, fmt.mib, true);
  const round = (r: ManySitesResult, n: number): RoundResult | undefined =>
    r.rounds.find((x) => x.round === n);
  for (const n of [1, 2]) {
    rows.push({
      metric: `round ${n}: correct / asked (wrong site, uncited, errors)`,
      current: c ? roundCell(round(c, n)) : '—',
      baseline: b ? roundCell(round(b, n)) : '—',
      change: '',
      bar: 'all correct',
    });
    add(`round ${n}: asked page among the search results`, (r) => round(r, n)?.sourcePageFound, fmt.n, null);
    rows.push({
      metric: `round ${n}: answer p50 / p99 / max`,
      current: c ? fmt.dist(round(c, n)?.totalMs ?? { n: 0, p50: 0, p99: 0, max: 0 }) : '—',
      baseline: b ? fmt.dist(round(b, n)?.totalMs ?? { n: 0, p50: 0, p99: 0, max: 0 }) : '—',
      change: '',
      bar: '',
    });
    add(`round ${n}: RSS at its end`, (r) => round(r, n)?.rssAfterBytes, fmt.mib, true);
    add(`round ${n}: RSS peak`, (r) => round(r, n)?.rssPeakBytes, fmt.mib, true);
  }
  rows.push({
    metric: 'cache hits / misses / loads (log, metrics)',
    current: c ? cacheCell(c) : '—',
    baseline: b ? cacheCell(b) : '—',
    change: '',
    bar: 'within the budget',
  });
  const notes: string[] = [];
  for (const line of [why(currentM, 'current'), why(baselineM, 'baseline')]) if (line) notes.push(line);
  for (const r of [c, b]) {
    if (!r) continue;
    for (const x of r.rounds) if (x.stopped) notes.push(`${r.tree} round ${x.round} stopped: ${x.stopped}`);
    if (r.examplesWrong.length > 0)
      notes.push(`${r.tree}: wrong or failed answers, e.g. ${r.examplesWrong.join(' | ')}`);
    if ((r.examplesUncited ?? []).length > 0)
      notes.push(`${r.tree}: uncited answers (round 1), e.g. ${r.examplesUncited.join(' | ')}`);
    const copy = r.write.copy;
    if (copy)
      notes.push(
        `${r.tree}: writer phases: templates ${copy.templates
          .map((t) => `${t.corpus} ${t.pages} pages ${t.seconds.toFixed(1)} s`)
          .join(', ')}; sampled real ingestions and comparisons ${copy.seconds.check.toFixed(1)} s; ` +
          `organizations, sites, jobs, keys ${copy.seconds.setup.toFixed(1)} s; copying rows ${copy.seconds.rows.toFixed(1)} s; ` +
          `storeSiteIndex ${copy.seconds.index.toFixed(1)} s`,
      );
    if (r.cacheMetrics.length > 0)
      notes.push(`${r.tree}: /metrics: ${r.cacheMetrics.slice(0, 12).join('; ')}`);
    const messages = Object.entries(r.cacheLog.messages);
    if (messages.length > 0)
      notes.push(`${r.tree}: index/cache log lines: ${messages.map(([m, n]) => `"${m}" ×${n}`).join(', ')}`);
    if (r.cacheLog.last)
      notes.push(`${r.tree}: last such line: ${JSON.stringify(r.cacheLog.last).slice(0, 400)}`);
  }
  return table(title, rows, notes);
}

function writerCell(r: ManySitesResult): string {
  const copy = r.write.copy;
  if (r.write.mode !== 'copy' || !copy)
    return `every site ingested (bootstrapSite)${r.write.modeNote ? `: ${r.write.modeNote}` : ''}`;
  const parsed = copy.templates.reduce((n, t) => n + t.pages, 0);
  const ingested = copy.ingestedSites.length;
  return (
    `each corpus ingested once (${copy.templates.length} templates, ${fmt.n(parsed)} pages), ` +
    `every site's pages and chunks copied from it under its own paths, index by storeSiteIndex` +
    (ingested > 0 ? `; ${ingested} sites ingested (a page of theirs reaches other files)` : '')
  );
}

function checkCell(r: ManySitesResult): string {
  const copy = r.write.copy;
  if (r.write.mode !== 'copy' || !copy) return 'not applicable (no copies)';
  const { check } = copy;
  if (check.sites.length === 0) return 'none (--check-sites 0)';
  return (
    `${check.sites.length} sampled sites (${check.sites.join(', ')}): ${fmt.n(check.pages)} pages, ` +
    `${fmt.n(check.chunks)} chunks, ${fmt.mib(check.indexBytes)} of stored index, ` +
    `${check.matched ? 'all identical' : 'NOT identical'}`
  );
}

function roundCell(r: RoundResult | undefined): string {
  if (!r) return '—';
  return `${r.correct} / ${r.asked} (${r.wrongSite}, ${r.uncited}, ${r.errors})${r.stopped ? ' stopped' : ''}`;
}

/** Hits, misses, loads and evictions when the log or the metrics name them; else what there is. */
function cacheCell(r: ManySitesResult): string {
  const fromMetrics: string[] = [];
  for (const word of ['hit', 'miss', 'load', 'evict']) {
    const line = r.cacheMetrics.find((l) => l.toLowerCase().includes(word));
    if (line) fromMetrics.push(line.replace(/^docent_/, ''));
  }
  if (fromMetrics.length > 0) return fromMetrics.join('; ');
  const last = r.cacheLog.last;
  if (last) {
    const fields = Object.entries(last)
      .filter(([k, v]) => typeof v === 'number' && /hit|miss|load|evict|bytes|size|sites|entries/i.test(k))
      .map(([k, v]) => `${k} ${v}`);
    if (fields.length > 0) return fields.join(', ');
  }
  return 'not reported by this tree';
}
