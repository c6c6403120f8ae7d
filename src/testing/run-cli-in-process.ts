import { vi } from 'vitest';
import { createProgram } from '../cli/program.ts';

/** Runs a CLI command in this process against `databaseUrl` and returns what it wrote to stdout. */
export async function runCliInProcess(databaseUrl: string, ...args: string[]): Promise<string> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await createProgram()
      .exitOverride()
      .parseAsync(['node', 'docent', '--database-url', databaseUrl, ...args]);
  } finally {
    spy.mockRestore();
  }
  return out;
}
