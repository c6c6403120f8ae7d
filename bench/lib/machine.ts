/** The report header: what machine, which commit, when. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { repoRoot } from '../../src/testing/paths.ts';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run started (other work on the machine skews the figures). */
  loadAverageAtStart: number;
}

export interface CommitInfo {
  commit: string;
  /** Whether the work tree had uncommitted changes (the figures are then of that tree, not the commit). */
  dirty: boolean;
}

export function machineInfo(): MachineInfo {
  return {
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}

export function commitInfo(): CommitInfo {
  const git = (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  try {
    return { commit: git('rev-parse', '--short', 'HEAD'), dirty: git('status', '--porcelain') !== '' };
  } catch {
    return { commit: 'unknown (not a git checkout)', dirty: false };
  }
}
