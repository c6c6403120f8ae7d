import type { Warning } from './types.ts';

/** How many warnings of one kind are kept before the rest are only counted. */
export const WARNING_CAP_PER_KIND = 200;

/**
 * Collects warnings with a per-kind cap: a config can list tens of thousands of missing pages (crewai lists
 * ~23k pages across versions that are not on disk) and the job record must stay small and cheap to write.
 */
export class WarningSink {
  private readonly kept: Warning[] = [];
  private readonly counts = new Map<string, number>();
  private readonly overflowLabels = new Map<string, string>();
  private readonly seen = new Set<string>();

  /**
   * `kind` groups warnings for capping; `overflowLabel` names them in the summary (`missing pages`). A
   * function is only called when the warning is kept, so over the cap nobody pays for line lookups.
   */
  add(warning: Warning | (() => Warning), kind = 'other', overflowLabel = 'more warnings'): void {
    const count = this.counts.get(kind) ?? 0;
    if (count >= WARNING_CAP_PER_KIND) {
      // Past the cap only counted (not built, so not told apart: a repeat counts again).
      this.counts.set(kind, count + 1);
      this.overflowLabels.set(kind, overflowLabel);
      return;
    }
    // Each warning once: a sidebars file read for every version and language warns alike each time.
    const built = typeof warning === 'function' ? warning() : warning;
    const key = `${built.file}\u0000${built.line ?? ''}\u0000${built.message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.counts.set(kind, count + 1);
    this.kept.push(built);
  }

  list(summaryFile: string): Warning[] {
    const out = [...this.kept];
    for (const [kind, label] of this.overflowLabels) {
      const extra = (this.counts.get(kind) ?? 0) - WARNING_CAP_PER_KIND;
      out.push({ file: summaryFile, message: `${extra} ${label}` });
    }
    return out;
  }
}
