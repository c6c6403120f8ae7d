import { spawn } from 'node:child_process';
import net from 'node:net';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import type { TemporaryDatabase } from './storage/temporary-database.ts';
import { createTemporaryTestDatabase } from './testing/databases.ts';
import { repoRoot } from './testing/paths.ts';

const refused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('npm run docent -- serve under a process manager', () => {
  let database: TemporaryDatabase | undefined;
  let group: number | undefined;
  afterAll(async () => {
    // Should the server outlive npm (the defect this tests), its whole process group goes.
    if (group !== undefined)
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Gone already.
      }
    await database?.remove();
  });

  it(
    'stops the server when npm itself gets SIGTERM (npm signals its shell, which must be the server)',
    {
      timeout: 60_000,
    },
    async () => {
      database = await createTemporaryTestDatabase('sqlite');
      const npm = spawn('npm', ['run', '--silent', 'docent', '--', 'serve', '--port', '0'], {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: database.url, DOCENT_SEED_DEMO: 'false', HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'inherit'],
        // Its own process group, for the clean-up above.
        detached: true,
      });
      group = npm.pid;
      const port = await new Promise<number>((resolve, reject) => {
        npm.once('exit', () => reject(new Error('npm exited before the server listened')));
        readline.createInterface({ input: npm.stdout as NodeJS.ReadableStream }).on('line', (line) => {
          try {
            const entry = JSON.parse(line) as { msg?: string; port?: number };
            if (entry.msg === 'docent listening' && entry.port !== undefined) resolve(entry.port);
          } catch {
            // Not a log line.
          }
        });
      });
      expect(await refused(port)).toBe(false);
      const exited = new Promise((resolve) => npm.once('exit', resolve));
      npm.kill('SIGTERM');
      await exited;
      // Before, the shell npm ran the script with died and left the server running, listening, orphaned.
      const deadline = Date.now() + 10_000;
      while (!(await refused(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await refused(port)).toBe(true);
    },
  );
});
