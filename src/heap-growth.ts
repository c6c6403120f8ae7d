import v8 from 'node:v8';

/**
 * Sets V8's heap growing factor for a server process (`DOCENT_HEAP_GROWTH_PERCENT`). V8 reads the flag
 * each time it sizes the heap after a full collection, so setting it once the process runs takes effect
 * from the next collection. A `--heap-growing-percent` given to node itself wins. Returns the percent in
 * effect, or null when V8 keeps its own factor.
 */
export function setHeapGrowth(
  percent: number,
  execArgv: readonly string[] = process.execArgv,
): number | null {
  const given = execArgv.find((arg) => /^--heap[-_]growing[-_]percent=/.test(arg));
  if (given !== undefined) return Number(given.split('=')[1]);
  if (percent <= 0) return null;
  v8.setFlagsFromString(`--heap-growing-percent=${Math.floor(percent)}`);
  return Math.floor(percent);
}
