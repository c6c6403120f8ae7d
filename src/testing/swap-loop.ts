import { type ChildProcess, execFileSync, spawn } from 'node:child_process';

/** Whether this machine can run `startSwapLoop` (Linux, and python3 whose libc has renameat2). */
export const hasRenameat2 = ((): boolean => {
  if (process.platform !== 'linux') return false;
  try {
    execFileSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export interface SwapLoop {
  /** True while the loop still runs (it stops on its own after `seconds`, or on a failed swap). */
  running(): boolean;
  stop(): Promise<void>;
}

/**
 * What a hostile docs owner does to win a race against a path check: `renameat2(RENAME_EXCHANGE)` of
 * `a` and `b` (a folder and a link), as fast as it goes, for `seconds` at most, in a process of its own.
 */
export function startSwapLoop(a: string, b: string, seconds = 4): SwapLoop {
  const child: ChildProcess = spawn(
    'python3',
    [
      '-c',
      [
        'import ctypes, sys, time',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'a, b = sys.argv[1].encode(), sys.argv[2].encode()',
        `end = time.time() + ${seconds}`,
        'while time.time() < end:',
        '    if libc.renameat2(-100, a, -100, b, 2) != 0: sys.exit(1)',
      ].join('\n'),
      a,
      b,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    running: () => child.exitCode === null && child.signalCode === null,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}
