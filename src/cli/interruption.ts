/** The exit status a shell gives a process ended by the signal: 128 + its number. */
const EXIT_STATUS = { SIGINT: 130, SIGTERM: 143 } as const;

type Signal = keyof typeof EXIT_STATUS;

/**
 * Runs `work` with Ctrl-C (SIGINT) and SIGTERM caught. Node's default ends the process on the spot,
 * which left an `init` half done (its organization and site made, no key printed, and `init` run again
 * refusing the domain as taken) and an `ingest` job `in_progress` until some other process came by to
 * settle it. Instead `settle` runs once (it undoes or marks failed what `work` had begun), `message` is
 * printed, and the process exits with the status the shell expects (130, 143). `work` cannot be
 * cancelled midway: it runs on while `settle` does, and whatever it does then is ignored.
 */
export async function settleIfInterrupted<T>(
  settle: () => Promise<void>,
  message: string,
  work: () => Promise<T>,
  exit: (code: number) => void = (code) => process.exit(code),
): Promise<T> {
  let interrupted = false;
  const onSignal = (signal: Signal) => {
    // A second Ctrl-C while settling (a database that no longer answers) ends the process at once, as
    // Node's default would have: the operator asked twice.
    if (interrupted) return exit(EXIT_STATUS[signal]);
    interrupted = true;
    void settle()
      .then(
        () => process.stderr.write(`docent: interrupted: ${message}\n`),
        (error: unknown) =>
          process.stderr.write(
            `docent: interrupted, and could not settle the work in progress: ${error instanceof Error ? error.message : String(error)}\n`,
          ),
      )
      .finally(() => {
        // process.exit never returns, but an `exit` that does (a test's) must leave Ctrl-C to its process.
        stopListening();
        exit(EXIT_STATUS[signal]);
      });
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  const stopListening = () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  // Once interrupted, the work's outcome (often a failure `settle` caused) is not reported: `exit` ends
  // the process once settled.
  const never = new Promise<never>(() => {});
  try {
    const value = await work();
    return interrupted ? await never : value;
  } catch (error) {
    if (interrupted) return await never;
    throw error;
  } finally {
    stopListening();
  }
}
