import cliProgress from 'cli-progress';
import type { LoadProgress } from '../ingest/types.ts';

/**
 * A progress bar on stderr for long work, only when a person is watching: never with --json and
 * never when stderr is not a terminal, so scripts get clean output.
 */
export function progressBar(label: string, enabled: boolean): { onProgress?: LoadProgress; stop(): void } {
  if (!enabled || !process.stderr.isTTY) return { stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {value}/{total} files`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress: (done, total) => {
      if (!started) {
        bar.start(total, done);
        started = true;
      } else bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
