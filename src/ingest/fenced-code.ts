/** An opening or closing code fence: three or more backticks or tildes, after any indentation. */
const FENCE = /^[ \t]*(`{3,}|~{3,})/;

/**
 * Follows fenced code line by line through Markdown (a page's source, or a stored section's text), so a
 * rewrite can leave code alone: `inFence` is true for a line inside a fence, or opening or closing one.
 */
export class FenceTracker {
  private fence: string | null = null;

  inFence(line: string): boolean {
    const opened = FENCE.exec(line)?.[1];
    if (this.fence !== null) {
      // A fence closes on a line of nothing but at least as many of its characters.
      const closes =
        opened !== undefined &&
        opened[0] === this.fence[0] &&
        opened.length >= this.fence.length &&
        line.trim() === opened;
      if (closes) this.fence = null;
      return true;
    }
    if (opened === undefined) return false;
    this.fence = opened;
    return true;
  }
}
