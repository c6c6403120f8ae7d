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

  /**
   * `kind` groups warnings for capping; `overflowLabel` names them in the summary (`missing pages`). A
   * function is only called when the warning is kept, so over the cap nobody pays for line lookups.
   */
  add(warning: Warning | (() => Warning), kind = 'other', overflowLabel = 'more warnings'): void {
    const count = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, count);
    if (count <= WARNING_CAP_PER_KIND) this.kept.push(typeof warning === 'function' ? warning() : warning);
    else this.overflowLabels.set(kind, overflowLabel);
  }

  /** The warnings kept, each once (a sidebars file read for every version and language warns alike). */
  list(summaryFile: string): Warning[] {
    const seen = new Set<string>();
    const out = this.kept.filter((w) => {
      const key = `${w.file}\u0000${w.line ?? ''}\u0000${w.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    for (const [kind, label] of this.overflowLabels) {
      const extra = (this.counts.get(kind) ?? 0) - WARNING_CAP_PER_KIND;
      out.push({ file: summaryFile, message: `${extra} ${label}` });
    }
    return out;
  }
}
