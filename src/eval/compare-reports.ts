/** `by_type.vague.hit@5` → value: every scalar of a report, nested objects flattened with dots. */
export const flattenReport = (
  report: unknown,
  prefix = '',
): Record<string, string | number | boolean | null> => {
  const out: Record<string, string | number | boolean | null> = {};
  if (typeof report !== 'object' || report === null) return out;
  for (const [key, value] of Object.entries(report)) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof value === 'object' && value !== null) Object.assign(out, flattenReport(value, name));
    else if (
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      value === null
    )
      out[name] = value;
  }
  return out;
};

export interface ReportChange {
  key: string;
  before: number;
  after: number;
  change: number;
}

/**
 * The numeric figures that differ between two eval reports (an earlier `eval --json` output and this run),
 * in the later report's order; figures only one of them has are left out.
 */
export const compareReports = (before: unknown, after: unknown): ReportChange[] => {
  const old = flattenReport(before);
  const changes: ReportChange[] = [];
  for (const [key, value] of Object.entries(flattenReport(after))) {
    const previous = old[key];
    if (typeof value !== 'number' || typeof previous !== 'number' || previous === value) continue;
    changes.push({
      key,
      before: previous,
      after: value,
      change: Math.round((value - previous) * 1000) / 1000,
    });
  }
  return changes;
};
