import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import type { TemporaryDatabase } from './storage/temporary-database.ts';
import { createTemporaryTestDatabase } from './testing/databases.ts';
import { repoRoot } from './testing/paths.ts';

/**
 * `npm start` as a new user runs it: an empty database, the bundled docs, and the printed curl call
 * must work as printed.
 */
describe('npm start on an empty database', () => {
  let child: ChildProcess | undefined;
  let database: TemporaryDatabase | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await database?.remove();
  });

  it('seeds the demo site, prints a key and a working request, and shuts down on SIGTERM', async () => {
    database = await createTemporaryTestDatabase('sqlite');
    child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/main.ts')], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    const port = await new Promise<number>((resolve, reject) => {
      readline.createInterface({ input: child?.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        lines.push(line);
        try {
          const entry = JSON.parse(line) as { msg?: string; port?: number };
          if (entry.msg === 'docent listening' && entry.port) resolve(entry.port);
        } catch {
          // Not a log line: the human-readable banner.
        }
      });
      child?.once('exit', (code) => reject(new Error(`exited with ${code}: ${lines.join('\n')}`)));
    });
    const output = lines.join('\n');
    expect(output).toMatch(/Demo site "demo" created from .+docs \(\d+ pages\)/);
    const key = output.match(/svc_dsc_[A-Za-z0-9]+/)?.[0];
    expect(key).toBeDefined();
    const body = output.match(/-d '(.+)'/)?.[1];
    expect(body).toBeDefined();

    // The printed call, sent to the port this run chose (the banner shows the configured one).
    const response = await fetch(`http://127.0.0.1:${port}/v1/assistant/demo/message`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: body ?? '',
    });
    expect(response.status).toBe(200);
    const stream = await response.text();
    expect(stream).toMatch(/^f:/);
    expect(stream).toMatch(/\n0:"/);
    expect(stream).toMatch(/\nd:\{"finishReason":"stop"/);

    const exited = new Promise<number | null>((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
