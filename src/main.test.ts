import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from './storage/database.ts';
import type { TemporaryDatabase } from './storage/temporary-database.ts';
import { DEMO_STARTER_QUESTIONS } from './tenancy/seed-demo.ts';
import { createTemporaryTestDatabase } from './testing/databases.ts';
import { repoRoot } from './testing/paths.ts';

/** Relative imports in the build that still name a `.ts` file: each would need a TypeScript loader. */
function typeScriptImports(dir: string): string[] {
  const found: string[] = [];
  for (const item of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!item.isFile() || !item.name.endsWith('.js')) continue;
    const file = path.join(item.parentPath, item.name);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+\.ts)['"]/g))
      found.push(`${path.relative(dir, file)}: ${match[1]}`);
  }
  return found;
}

/**
 * `npm start` as a new user runs it: a checkout with no build (it builds first), an empty database,
 * the bundled docs, and the printed curl call must work as printed.
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

  // The whole build runs first: about 40 s on two quiet cores, and several times that on two busy ones.
  it(
    'builds, seeds the demo site, prints a key and a working request, and shuts down on SIGTERM',
    {
      timeout: 300_000,
    },
    async () => {
      database = await createTemporaryTestDatabase('sqlite');
      // As on a fresh checkout: no finished build, so start builds dist/ first.
      fs.rmSync(path.join(repoRoot, 'dist', '.built'), { force: true });
      child = spawn(process.execPath, [path.join(repoRoot, 'scripts/start.mjs')], {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const lines: string[] = [];
      const port = await new Promise<number>((resolve, reject) => {
        let listening: number | undefined;
        readline.createInterface({ input: child?.stdout as NodeJS.ReadableStream }).on('line', (line) => {
          lines.push(line);
          try {
            const entry = JSON.parse(line) as { msg?: string; port?: number };
            if (entry.msg === 'docent listening' && entry.port) listening = entry.port;
          } catch {
            // Not a log line: the human-readable banner, whose last line comes once the server listens.
            if (line.startsWith("Owner's console:") && listening !== undefined) resolve(listening);
          }
        });
        child?.once('exit', (code) =>
          reject(new Error(`exited with ${code}: ${lines.join('\n')}\n${stderr}`)),
        );
      });
      expect(stderr).toContain('docent: building dist/ first (no build yet): npm run build');
      // The compiled server: no TypeScript left to load, and the demo's pages were parsed by the compiled
      // page worker (the TypeScript boot file is not in dist/).
      expect(fs.existsSync(path.join(repoRoot, 'dist', 'main.js'))).toBe(true);
      expect(fs.existsSync(path.join(repoRoot, 'dist', 'ingest', 'page-worker.js'))).toBe(true);
      expect(typeScriptImports(path.join(repoRoot, 'dist'))).toEqual([]);
      const output = lines.join('\n');
      expect(output).toMatch(/Demo site "demo" created from .+docs \(\d+ pages\)/);
      const key = output.match(/svc_dsc_[A-Za-z0-9]+/)?.[0];
      expect(key).toBeDefined();
      const body = output.match(/-d '(.+)'/)?.[1];
      expect(body).toBeDefined();
      // The current wire, not the deprecated v1.
      const printedUrl = output.match(/curl -N (http:\/\/\S+)/)?.[1];
      expect(printedUrl).toBe(`http://127.0.0.1:${port}/v2/assistant/demo/message`);
      // One block, printed once the server listens: no log line splits it.
      const bannerStart = lines.findIndex((line) => line.startsWith('Demo site "demo" created'));
      const bannerEnd = lines.findIndex((line) => line.startsWith("Owner's console:"));
      expect(bannerEnd).toBeGreaterThan(bannerStart);
      expect(lines.slice(bannerStart, bannerEnd + 1).filter((line) => line.startsWith('{'))).toEqual([]);
      expect(lines.findIndex((line) => line.includes('"msg":"docent listening"'))).toBeLessThan(bannerStart);

      // The printed call, as printed.
      const response = await fetch(printedUrl ?? '', {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: body ?? '',
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const stream = await response.text();
      expect(stream).toMatch(/^data: \{"type":"start"/);
      expect(stream).toMatch(/\ndata: \{"type":"text-delta"/);
      expect(stream).toMatch(/\ndata: \{"type":"source-url"/);
      expect(stream.endsWith('data: [DONE]\n\n')).toBe(true);

      // The second line a newcomer follows: the demo page, with the widget from the build, signed with a
      // key that answers.
      expect(lines).toContain(
        `Demo page: open http://127.0.0.1:${port}/ and ask the assistant (Ctrl+I or ⌘I).`,
      );
      expect(lines).toContain(
        // The server's database is not the default file, so the command names it (a CLI in another shell
        // would otherwise open the default one).
        `Owner's console: http://127.0.0.1:${port}/console, signed in with an admin key from npm run docent -- keys create --admin --site demo --database-url '${database.url}'`,
      );
      expect(fs.existsSync(path.join(repoRoot, 'dist', 'widget', 'widget.js'))).toBe(true);
      const home = await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' });
      expect(home.status).toBe(302);
      const page = await fetch(new URL(home.headers.get('Location') ?? '', `http://127.0.0.1:${port}`));
      const html = await page.text();
      const tag = html.match(
        /<script src="(\/widget\/[0-9a-f]{16}\.js)" data-domain="demo" data-key="(svc_dsc_\w+)"/,
      );
      expect(tag).not.toBeNull();
      const script = await fetch(`http://127.0.0.1:${port}${tag?.[1]}`);
      expect(script.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8');
      // The launcher names the panel it loads, served beside it.
      const panel = (await script.text()).match(/panel-[0-9a-f]{16}\.js/)?.[0];
      expect(panel).toBeDefined();
      expect((await fetch(`http://127.0.0.1:${port}/widget/${panel}`)).status).toBe(200);
      const widgetAnswer = await fetch(`http://127.0.0.1:${port}/v2/assistant/demo/message`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tag?.[2]}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          fp: 'anonymous',
          messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'How do I ingest my docs?' }] }],
        }),
      });
      expect(widgetAnswer.status).toBe(200);
      expect(await widgetAnswer.text()).toContain('"type":"source-url"');
      // What the widget offers on its empty panel.
      const config = await fetch(`http://127.0.0.1:${port}/v2/assistant/demo/config`, {
        headers: { Authorization: `Bearer ${tag?.[2]}` },
      });
      expect(((await config.json()) as { starterQuestions: string[] }).starterQuestions).toEqual([
        ...DEMO_STARTER_QUESTIONS,
      ]);

      const exited = new Promise<number | null>((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    },
  );

  it('rebuilds when any source changed: a console screen (.tsx) or a worker boot file (.mjs) too', () => {
    const check = () =>
      execFileSync(process.execPath, [path.join(repoRoot, 'scripts/start.mjs'), '--check'], {
        cwd: repoRoot,
      }).toString();
    const built = path.join(repoRoot, 'dist', '.built');
    const screen = path.join(repoRoot, 'src/http/routes/console/overview-screen.tsx');
    const boot = path.join(repoRoot, 'src/ingest/page-worker-boot.mjs');
    // The build as of now, so that no file edited or written before this test makes it stale.
    const builtBefore = fs.statSync(built).mtime;
    const builtAt = new Date();
    fs.utimesSync(built, builtAt, builtAt);
    const before = [fs.statSync(screen).mtime, fs.statSync(boot).mtime] as const;
    try {
      expect(check()).toBe('up to date\n');
      for (const file of [screen, boot]) {
        const later = new Date(builtAt.getTime() + 60_000);
        fs.utimesSync(file, later, later);
        expect(check(), file).toBe('sources changed since\n');
        fs.utimesSync(file, before[file === screen ? 0 : 1], before[file === screen ? 0 : 1]);
      }
    } finally {
      fs.utimesSync(screen, before[0], before[0]);
      fs.utimesSync(boot, before[1], before[1]);
      fs.utimesSync(built, builtBefore, builtBefore);
    }
  });

  it('on a port in use, says so in one line and changes nothing', { timeout: 120_000 }, async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const busy = (taken.address() as net.AddressInfo).port;
    const fresh = await createTemporaryTestDatabase('sqlite');
    try {
      const run = spawn(process.execPath, [path.join(repoRoot, 'scripts/start.mjs')], {
        cwd: repoRoot,
        env: {
          ...process.env,
          DATABASE_URL: fresh.url,
          PORT: String(busy),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      run.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      run.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => run.once('exit', resolve));
      expect(code).toBe(1);
      expect(err).toContain(
        `docent failed to start: port ${busy} on 127.0.0.1 is in use (set PORT to another)`,
      );
      expect(err).not.toMatch(/\n\s+at /);
      // Nothing seeded, registered or minted: a server already on that port may be using this
      // database, and its demo page's key must not be revoked by a start that cannot serve.
      expect(out).not.toContain('svc_dsc_');
      const storage = await openStorage(fresh.url);
      try {
        expect(await storage.db.selectFrom('sites').select('id').execute()).toEqual([]);
        expect(await storage.db.selectFrom('api_keys').select('id').execute()).toEqual([]);
      } finally {
        await storage.close();
      }
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      await fresh.remove();
    }
  });
});
