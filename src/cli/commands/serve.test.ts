import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemporaryDatabase } from '../../storage/temporary-database.ts';
import { createTemporaryTestDatabase } from '../../testing/databases.ts';
import { repoRoot } from '../../testing/paths.ts';
import { runCliInProcess } from '../../testing/run-cli-in-process.ts';

/**
 * The real CLI with stdout and stderr on one file, as a terminal shows them: what comes after the error
 * line is visible. Resolves once the process has exited.
 */
async function serve(args: string[], env: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-serve-'));
  const file = path.join(dir, 'output');
  const fd = fs.openSync(file, 'w');
  try {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), ...args],
        {
          cwd: repoRoot,
          env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
          stdio: ['ignore', fd, fd],
          timeout: 120_000,
        },
      );
      child.once('exit', resolve);
    });
    return { code, output: fs.readFileSync(file, 'utf8') };
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('docent serve on a port in use', { timeout: 240_000 }, () => {
  let taken: net.Server;
  let busy: number;
  let database: TemporaryDatabase;
  beforeAll(async () => {
    taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    busy = (taken.address() as net.AddressInfo).port;
    database = await createTemporaryTestDatabase('sqlite');
  });
  afterAll(async () => {
    await new Promise((resolve) => taken.close(resolve));
    await database.remove();
  });

  it('ends with one line naming the knob that chose the port, having changed nothing', async () => {
    const flag = await serve(['--database-url', database.url, 'serve', '--port', String(busy)], {});
    expect(flag.code).toBe(1);
    const lines = flag.output.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(
      `docent: failed to start: port ${busy} on 127.0.0.1 is in use (choose another with --port)`,
    );
    expect(flag.output).not.toMatch(/\n\s+at /);
    // Nothing was seeded or minted: a server already on that port may be using this database.
    expect(flag.output).not.toContain('svc_dsc_');

    const env = await serve(['--database-url', database.url, 'serve'], { PORT: String(busy) });
    expect(env.code).toBe(1);
    expect(env.output.trimEnd().split('\n').at(-1)).toBe(
      `docent: failed to start: port ${busy} on 127.0.0.1 is in use (choose another with --port or PORT)`,
    );
  });

  it('refuses a --port that is not one before starting anything', async () => {
    for (const port of ['abc', '70000', '-1', '1.5', ''])
      await expect(runCliInProcess(database.url, 'serve', '--port', port), port).rejects.toThrow(
        /^--port must be a whole number from 0 to 65,535$/,
      );
  });
});
